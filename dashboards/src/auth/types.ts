/** The token reply of GET /oauth2/token.json. */
export interface TokenData {
  access_token: string;
  refresh_token: string;
  /** Lifetime in seconds. */
  expires_in: number;
  create_time?: number | string;
  token_type?: string;
}

/** A token as kept in session storage: `received_at_ms` is the browser's clock when it arrived. */
export interface StoredToken extends TokenData {
  received_at_ms: number;
}

export interface Permission {
  code: string;
  actions: string[];
}

export interface RouteMeta {
  title: string;
  icon?: string;
  permission?: string[];
  invisible?: boolean;
  link?: string;
  highlight?: string;
  closable?: boolean;
  cacheAble?: boolean;
  target?: string;
}

export interface ServerRoute {
  path: string;
  name: string;
  component: string;
  redirect?: string;
  meta: RouteMeta;
  children?: ServerRoute[];
}

/** GET /api/user/current.json (never holds the password). */
export interface CurrentUser {
  id: number;
  userName: string;
  name?: string;
  nickName?: string;
  account?: string;
  enterpriseId?: number;
  enterpriseName?: string;
  email?: string;
  phone?: string;
  avatar?: string;
  /** Profile text and address fields, flattened by the API. */
  profile?: string;
  country?: string;
  province?: string;
  city?: string;
  address?: string;
  permissions: Permission[];
  routes: ServerRoute[];
  /** Screens of the server's route map these permissions do not open: their URLs show the 403 page. */
  deniedPaths?: string[];
  /** The authorization protocol (console-spec §7 "General"): 1 sends Basic userName:password, else Bearer. */
  authProtocol?: 1 | 2 | 3;
}

/** The displayed name: the first available of nickName, name, userName, account (console-spec §3). */
export function displayName(user: Pick<CurrentUser, 'nickName' | 'name' | 'userName' | 'account'>): string {
  return user.nickName || user.name || user.userName || user.account || '';
}
