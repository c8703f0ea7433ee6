/** Every API reply, success or failure, has this shape; code 0 is success. */
export interface ApiReply<T> {
  code: number;
  message: string;
  data: T;
  /** Errors only: `message` in the language of the X-Fleet-Language header (api/errors.py). */
  localMessage?: string;
}

export const SUCCESS_CODE = 0;
/** The session is invalid: log out and sign in again. */
export const SESSION_INVALID_CODE = 40002;
/** Used when no response arrived at all. */
export const NETWORK_FAILURE_CODE = 500;
