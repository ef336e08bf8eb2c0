/** The ActionCommand of CONTRACT.md section 3, once its shape has been checked. */
export const Action = {
  http_request: 'http.request',
  ssh_exec: 'ssh.exec',
} as const;
export type Action = (typeof Action)[keyof typeof Action];
export const ACTIONS: readonly Action[] = Object.values(Action);

export const HttpMethod = {
  GET: 'GET',
  HEAD: 'HEAD',
  OPTIONS: 'OPTIONS',
  POST: 'POST',
  PUT: 'PUT',
  PATCH: 'PATCH',
  DELETE: 'DELETE',
} as const;
export type HttpMethod = (typeof HttpMethod)[keyof typeof HttpMethod];
export const HTTP_METHODS: readonly HttpMethod[] = Object.values(HttpMethod);

/** Exactly one of the three encodings. */
export type BodyInput = { text: string } | { base64: string } | { json: unknown };
export type StdinInput = { text: string } | { base64: string };

export interface HttpSpec {
  method: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  body?: BodyInput;
}

export interface SshSpec {
  host: string;
  port?: number;
  command: string;
  stdin?: StdinInput;
}

export interface ActionCommand {
  client_request_id: string;
  caller?: string;
  action: Action;
  credential: string;
  http?: HttpSpec;
  ssh?: SshSpec;
  idempotency_key?: string;
  idempotent?: boolean;
  timeout_ms?: number;
}
