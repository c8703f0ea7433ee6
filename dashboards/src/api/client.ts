import { session } from '../auth/session';
import { clientEffects, logoutToLogin, onLoginPage } from './effects';
import { failurePolicy, failureReply, type Failure } from './failure';
import type { ApiReply } from './types';

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  params?: Record<string, QueryValue>;
  body?: unknown;
  /** Abort to cancel: the call then resolves {code: 0, data: null} and shows nothing. */
  signal?: AbortSignal;
  /** For optional endpoints: no error notification. A 40002 still logs out (the session is gone). */
  quiet?: boolean;
}

export function buildUrl(url: string, params?: Record<string, QueryValue>): string {
  if (!params) return url;
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.append(key, String(value));
  }
  const text = query.toString();
  if (!text) return url;
  return `${url}${url.includes('?') ? '&' : '?'}${text}`;
}

function isReply(body: unknown): body is ApiReply<unknown> {
  return !!body && typeof body === 'object' && typeof (body as { code?: unknown }).code === 'number';
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The one failure handler (house style 7, console-spec §8): turns a failure into the reply the caller
 * receives and applies the display policy — an error notification titled "请求错误" with the server's
 * message, and on 40002 a logout to login with redirect = current full path (unless already there).
 */
export function handleFailure(failure: Failure, quiet = false): ApiReply<null> {
  const effects = clientEffects();
  const reply = failureReply(failure, effects.translate);
  const policy = failurePolicy(failure, reply, onLoginPage());
  if (policy.notify && !quiet) effects.notifyError(effects.translate('common:request.errorTitle'), reply.message);
  if (policy.logout) logoutToLogin();
  return reply;
}

/** Every request: Bearer token, JSON, cancellable; resolves (never rejects) with {code, message, data}. */
export async function request<T>(url: string, options: RequestOptions = {}): Promise<ApiReply<T>> {
  const fail = (failure: Failure) => handleFailure(failure, options.quiet) as ApiReply<T>;
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'Content-Type': 'application/json;charset=UTF-8',
  };
  const token = session.accessToken();
  if (token) headers.Authorization = `Bearer ${token}`;

  let response: Response;
  try {
    response = await fetch(buildUrl(url, options.params), {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    const cancelled = options.signal?.aborted || (error instanceof DOMException && error.name === 'AbortError');
    return fail(cancelled ? { kind: 'cancel' } : { kind: 'network' });
  }

  let body: unknown;
  try {
    body = await readBody(response);
  } catch {
    return fail(options.signal?.aborted ? { kind: 'cancel' } : { kind: 'network' });
  }
  if (!response.ok) {
    return fail({ kind: 'http', status: response.status, statusText: response.statusText, body });
  }
  if (!isReply(body)) {
    return fail({ kind: 'http', status: 500, statusText: response.statusText, body });
  }
  if (body.code !== 0) return fail({ kind: 'reply', reply: body });
  return body as ApiReply<T>;
}

type Shortcut = <T>(url: string, options?: Omit<RequestOptions, 'method'>) => Promise<ApiReply<T>>;
const shortcut =
  (method: NonNullable<RequestOptions['method']>): Shortcut =>
  (url, options) =>
    request(url, { ...options, method });

export const http = {
  get: shortcut('GET'),
  post: shortcut('POST'),
  put: shortcut('PUT'),
  patch: shortcut('PATCH'),
  delete: shortcut('DELETE'),
};
