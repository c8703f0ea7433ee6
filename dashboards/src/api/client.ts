import { session } from '../auth/session';
import { clientEffects, logoutToLogin, onLoginPage } from './effects';
import { failurePolicy, failureReply, type Failure } from './failure';
import type { ApiReply } from './types';
import { LANGUAGE_HEADER } from './language';

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  params?: Record<string, QueryValue>;
  /** JSON-encoded, except FormData (a multipart upload, sent as is). */
  body?: unknown;
  /** Abort to cancel: the call then resolves {code: 0, data: null} and shows nothing. */
  signal?: AbortSignal;
  /** For optional endpoints: no error notification. A 40002 still logs out (the session is gone). */
  quiet?: boolean;
  /** Replaces the session's Authorization header (the token calls' client credentials under protocol 2). */
  authorization?: string;
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
 * receives and applies the display policy — an error notification titled "请求错误" (in the user's language) with the server's
 * message in the user's language (its localMessage), and on 40002 a logout to login with redirect = current full path (unless already there).
 */
export function handleFailure(failure: Failure, quiet = false): ApiReply<unknown> {
  const effects = clientEffects();
  const reply = failureReply(failure, effects.translate);
  const policy = failurePolicy(failure, reply, onLoginPage());
  if (policy.notify && !quiet) effects.notifyError(effects.translate('common:request.errorTitle'), reply.message);
  if (policy.logout) logoutToLogin();
  return reply;
}

export { LANGUAGE_HEADER };

function headersFor(body: unknown, accept: string, own?: string): Record<string, string> {
  const headers: Record<string, string> = { Accept: accept };
  const language = clientEffects().language();
  if (language) headers[LANGUAGE_HEADER] = language;
  if (!(body instanceof FormData)) headers['Content-Type'] = 'application/json;charset=UTF-8';
  const authorization = own ?? session.authorization();
  if (authorization) headers.Authorization = authorization;
  return headers;
}

async function send(url: string, options: RequestOptions, accept: string): Promise<Response | Failure> {
  const { body } = options;
  try {
    return await fetch(buildUrl(url, options.params), {
      method: options.method ?? 'GET',
      headers: headersFor(body, accept, options.authorization),
      body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
      signal: options.signal,
    });
  } catch (error) {
    const cancelled = options.signal?.aborted || (error instanceof DOMException && error.name === 'AbortError');
    return cancelled ? { kind: 'cancel' } : { kind: 'network' };
  }
}

/** Every request: Authorization (Bearer token, Basic under protocol 1), JSON, cancellable; resolves (never rejects) with {code, message, data}. */
export async function request<T>(url: string, options: RequestOptions = {}): Promise<ApiReply<T>> {
  const fail = (failure: Failure) => handleFailure(failure, options.quiet) as ApiReply<T>;
  const response = await send(url, options, 'application/json');
  if ('kind' in response) return fail(response);

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

export interface Download {
  blob: Blob;
  /** From Content-Disposition (RFC 6266 filename* first), else the caller's fallback. */
  fileName: string;
}

function fileNameOf(disposition: string | null, fallback: string): string {
  if (!disposition) return fallback;
  const star = /filename\*=(?:UTF-8'')?([^;]+)/i.exec(disposition);
  if (star) return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
  const plain = /filename="?([^";]+)"?/i.exec(disposition);
  return plain ? plain[1] : fallback;
}

/** Bytes received so far and the whole size when the server says it (Content-Length). */
export type DownloadProgress = (received: number, total: number | null) => void;

/** The body as a blob, reporting each chunk as it arrives (a large export takes a while). */
async function readWithProgress(response: Response, onProgress: DownloadProgress): Promise<Blob> {
  const length = Number(response.headers.get('Content-Length'));
  const total = Number.isFinite(length) && length > 0 ? length : null;
  if (!response.body) return response.blob();
  const reader = response.body.getReader();
  const chunks: BlobPart[] = [];
  let received = 0;
  onProgress(0, total);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.byteLength;
    onProgress(received, total);
  }
  return new Blob(chunks, { type: response.headers.get('Content-Type') ?? '' });
}

/**
 * A file from the API (GET or POST, Bearer token): the blob and its name, or null after the failure
 * went through the one handler (a JSON error body is shown like any other failure).
 */
export async function download(url: string, fallbackName: string,
  options: RequestOptions & { onProgress?: DownloadProgress } = {}): Promise<Download | null> {
  const response = await send(url, options, '*/*');
  if ('kind' in response) {
    handleFailure(response, options.quiet);
    return null;
  }
  if (!response.ok) {
    handleFailure({ kind: 'http', status: response.status, statusText: response.statusText, body: await readBody(response) }, options.quiet);
    return null;
  }
  try {
    const blob = options.onProgress ? await readWithProgress(response, options.onProgress) : await response.blob();
    return { blob, fileName: fileNameOf(response.headers.get('Content-Disposition'), fallbackName) };
  } catch {
    handleFailure(options.signal?.aborted ? { kind: 'cancel' } : { kind: 'network' }, options.quiet);
    return null;
  }
}
