import type { Binding, CredentialType } from '@postern/contract';
import { injectCredential, type HttpRequest, type HttpTarget } from '@postern/transport-http';

/** The origin and the request line of a bound HTTP target. */
export interface BoundTarget {
  target: HttpTarget;
  /** `scheme://host:port`, the pool key. */
  origin: string;
  /** Path and query as the request line carries them. */
  path: string;
}

/** The bound target (`scheme://host:port/path?query`) split for the transport; null when it is not HTTP. */
export function targetOf(binding: Binding): BoundTarget | null {
  let url: URL;
  try {
    url = new URL(binding.target);
  } catch {
    return null;
  }
  const scheme = url.protocol === 'https:' ? 'https' : url.protocol === 'http:' ? 'http' : null;
  if (scheme === null) return null;
  const port = url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port);
  // URL keeps the brackets of an IPv6 literal; sockets want the bare address.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return {
    target: { scheme, host, port },
    origin: `${scheme}://${url.hostname}:${port}`,
    path: `${url.pathname || '/'}${url.search}`,
  };
}

export interface RequestPlanInput {
  binding: Binding;
  bound: BoundTarget;
  /** The caller's headers as ACTION_ACCEPTED recorded them (credential headers cannot be among them). */
  callerHeaders: Record<string, string>;
  credential: { type: CredentialType; user?: string; header_name?: string; param?: string };
  secret: Uint8Array;
  body: Uint8Array | null;
  /** The bound method unless a followed 303 turned it into GET. */
  method?: string;
}

/**
 * The request as it goes on the wire: the bound method and target, the
 * caller's headers, the contract's idempotency header and the credential.
 * Built only after DISPATCH_STARTED is durable; the result holds the secret
 * and lives no longer than the exchange.
 */
export function planRequest(input: RequestPlanInput): HttpRequest {
  const headers: Record<string, string> = { ...input.callerHeaders };
  const idem = input.binding.idempotency;
  if (idem !== null) {
    for (const name of Object.keys(headers)) if (name.toLowerCase() === idem.header.toLowerCase()) delete headers[name];
    headers[idem.header] = idem.key;
  }
  const injected = injectCredential({ path: input.bound.path, headers }, input.credential, input.secret);
  const request: HttpRequest = { method: input.method ?? input.binding.method ?? 'GET', path: injected.path, headers: injected.headers };
  if (input.body !== null) request.body = input.body;
  return request;
}

/** The caller's headers out of ACTION_ACCEPTED's command summary. */
export function callerHeadersOf(command: unknown): Record<string, string> {
  if (command === null || typeof command !== 'object') return {};
  const http = (command as { http?: unknown }).http;
  if (http === null || typeof http !== 'object') return {};
  const headers = (http as { headers?: unknown }).headers;
  if (headers === null || typeof headers !== 'object') return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  return out;
}
