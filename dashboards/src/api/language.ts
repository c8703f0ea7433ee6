/** The header naming the console's language on every request and in the push socket's CONNECT: the
 * server answers its texts (error messages, alarm and permission names, push texts) in it
 * (api/errors.py `request_language`). */
export const LANGUAGE_HEADER = 'X-Fleet-Language';
