import { NETWORK_FAILURE_CODE, SESSION_INVALID_CODE, type ApiReply } from './types';

/** What went wrong with one request, before any policy is applied. */
export type Failure =
  | { kind: 'cancel' }
  | { kind: 'network' }
  | { kind: 'http'; status: number; statusText: string; body?: unknown }
  | { kind: 'reply'; reply: ApiReply<unknown> };

export interface FailurePolicy {
  /** Show the reply's message as an error notification titled "请求错误". */
  notify: boolean;
  /** Log out and go to login with redirect = current full path. */
  logout: boolean;
}

type Translate = (key: string) => string;

/** HTTP statuses of platform-spec §8 that have their own message (common:httpStatus.<status>). */
export const STATUS_MESSAGES = [200, 201, 202, 204, 400, 401, 403, 404, 406, 410, 422, 500, 502, 503, 504] as const;

function statusMessage(status: number, statusText: string, t: Translate): string {
  if ((STATUS_MESSAGES as readonly number[]).includes(status)) return t(`common:httpStatus.${status}`);
  return statusText || String(status);
}

function bodyText(body: unknown, field: 'error' | 'message' | 'localMessage'): string | undefined {
  if (body && typeof body === 'object' && field in body) {
    const value = (body as Record<string, unknown>)[field];
    if (typeof value === 'string' && value) return value;
  }
  return undefined;
}

function bodyCode(body: unknown): number | undefined {
  if (body && typeof body === 'object' && 'code' in body) {
    const value = (body as Record<string, unknown>).code;
    if (typeof value === 'number' && value !== 0) return value;
  }
  return undefined;
}

/** The server's `data` of a failed envelope (e.g. `{field}` of a 400/409, where a form marks it), else null. */
function bodyData(body: unknown): unknown {
  if (body && typeof body === 'object' && 'data' in body) return (body as Record<string, unknown>).data ?? null;
  return null;
}

/**
 * The reply a caller receives for a failure (spec §8): never throws, always {code, message, data};
 * `message` is the server's text in the user's language (its localMessage) when it sent one, else its
 * `message` (the spec's Chinese text, the same for every caller); `data` as sent (a 403's `{permission}`).
 */
export function failureReply(failure: Failure, t: Translate): ApiReply<unknown> {
  switch (failure.kind) {
    case 'cancel':
      return { code: 0, message: '', data: null };
    case 'network':
      return { code: NETWORK_FAILURE_CODE, message: t('common:request.network'), data: null };
    case 'http':
      return {
        code: bodyCode(failure.body) ?? failure.status,
        message:
          bodyText(failure.body, 'localMessage') ??
          bodyText(failure.body, 'error') ??
          bodyText(failure.body, 'message') ??
          statusMessage(failure.status, failure.statusText, t),
        data: bodyData(failure.body),
      };
    case 'reply':
      return {
        code: failure.reply.code,
        message: failure.reply.localMessage || failure.reply.message || t('common:request.unknown'),
        data: failure.reply.data ?? null,
      };
  }
}

/** The display policy: cancelled requests are silent, everything else is shown; 40002 also logs out. */
export function failurePolicy(failure: Failure, reply: ApiReply<unknown>, onLoginPage: boolean): FailurePolicy {
  if (failure.kind === 'cancel') return { notify: false, logout: false };
  const sessionInvalid = reply.code === SESSION_INVALID_CODE;
  return { notify: true, logout: sessionInvalid && !onLoginPage };
}
