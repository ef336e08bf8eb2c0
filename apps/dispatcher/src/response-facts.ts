import { headerValue, parseProxyStatus, parseRetryAfter, redactText } from '@postern/transport-http';
import { remoteRequestId, type ResponseFacts } from './observation-from-report.js';

/**
 * Reads Retry-After, Location, Proxy-Status and the remote's request id from
 * a final response head. Values the remote chose go into events, so each is
 * bounded and has the secret's forms removed (a remote may echo a credential).
 */
export function responseFacts(headers: readonly [string, string][], nowMs: number, secretForms: readonly string[]): ResponseFacts {
  const facts: ResponseFacts = { hop: 'origin' };
  const retryAfter = parseRetryAfter(headerValue(headers, 'retry-after'), nowMs);
  if (retryAfter !== undefined) facts.retry_after_ms = retryAfter;
  const location = headerValue(headers, 'location');
  if (location !== undefined && location.length > 0) facts.location = redactText(location, secretForms).slice(0, 2048);
  const proxyStatus = parseProxyStatus(headerValue(headers, 'proxy-status'));
  if (proxyStatus.length > 0) {
    const entries = JSON.parse(redactText(JSON.stringify(proxyStatus), secretForms)) as { name: string; error?: string }[];
    facts.proxy_status = entries.slice(0, 8);
    // The intermediary that reports an error is the one that answered in the
    // origin's place; without one, the last entry is the hop nearest to us.
    const answering = entries.find((e) => e.error !== undefined) ?? entries[entries.length - 1];
    if (answering !== undefined && answering.name.length > 0) facts.hop = `proxy:${answering.name.slice(0, 200)}`;
  }
  const requestId = remoteRequestId(headers);
  if (requestId !== undefined) facts.remote_request_id = redactText(requestId, secretForms);
  return facts;
}
