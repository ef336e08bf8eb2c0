import type { Code } from './code.js';

/**
 * Why a command was refused before anything was sent. `field` is the path of
 * the field to correct (`http.headers.authorization`); `message` is for humans
 * and never echoes a credential id or a header value.
 */
export interface ValidationFailure {
  code: Code;
  field: string;
  message: string;
}
