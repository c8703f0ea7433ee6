/**
 * Which detail page a vehicle opens (platform-spec §2 "car-detail"): by its master device's protocol,
 * always with carId (and the device shown). The variants render the generic page with a notice until
 * their protocols exist. Paths match the route map (api/routemap.py).
 */
export type CarDetailRouteName = 'carDetail' | 'nevCarDetail' | 'g6CarDetail' | 'hj1239CarDetail' | 'db4403t363CarDetail';

export const CAR_DETAIL_PATH = '/list/carDetail';

/** Protocol -> route name; anything else is the generic carDetail. */
const BY_PROTOCOL: Record<string, CarDetailRouteName> = {
  gb32960: 'nevCarDetail',
  gb17691: 'g6CarDetail',
  hj1239: 'hj1239CarDetail',
  db4403t363: 'db4403t363CarDetail',
};

const PATHS: Record<CarDetailRouteName, string> = {
  carDetail: CAR_DETAIL_PATH,
  nevCarDetail: `${CAR_DETAIL_PATH}/gb32960`,
  g6CarDetail: `${CAR_DETAIL_PATH}/gb17691`,
  hj1239CarDetail: `${CAR_DETAIL_PATH}/hj1239`,
  db4403t363CarDetail: `${CAR_DETAIL_PATH}/db4403t363`,
};

export function carDetailRouteName(protocol: string | null | undefined): CarDetailRouteName {
  const key = (protocol ?? '').trim().toLowerCase();
  return Object.hasOwn(BY_PROTOCOL, key) ? BY_PROTOCOL[key] : 'carDetail';
}

/** The route name a detail path belongs to (null: not a detail path). */
export function routeNameOfPath(pathname: string): CarDetailRouteName | null {
  const trimmed = pathname.replace(/\/+$/, '');
  const found = (Object.entries(PATHS) as [CarDetailRouteName, string][]).find(([, path]) => path === trimmed);
  return found ? found[0] : null;
}

/** The URL of a vehicle's detail page; `protocol` unknown yet: the generic page, which redirects. */
export function carDetailUrl(carId: number | string, deviceId?: number | string | null, protocol?: string | null): string {
  const query = new URLSearchParams({ carId: String(carId) });
  if (deviceId !== null && deviceId !== undefined && deviceId !== '') query.set('deviceId', String(deviceId));
  return `${PATHS[carDetailRouteName(protocol)]}?${query.toString()}`;
}
