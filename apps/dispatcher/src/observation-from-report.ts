import type { ContractStatuses, HttpObservation } from '@postern/contract';
import type { HttpExchangeReport } from '@postern/transport-http';

/** What the response's headers say beyond its status, parsed once at the edge. */
export interface ResponseFacts {
  retry_after_ms?: number;
  location?: string;
  /** `origin`, or `proxy:<name>` when a Proxy-Status entry names the proxy that answered. */
  hop?: string;
  proxy_status?: unknown[];
  remote_request_id?: string;
}

/**
 * The transport's raw facts as the contract's HTTP observation. A status
 * counts only once the header section is complete, and the body only by
 * Postern's own framing verdict (CONTRACT.md section 6, invariant 4).
 */
export function observationFromReport(
  report: HttpExchangeReport,
  facts: ResponseFacts,
  contract: ContractStatuses | null,
): HttpObservation {
  const status = report.headers_complete && report.status !== null && report.status >= 200 ? report.status : null;
  const observation: HttpObservation = {
    kind: 'http',
    connection_reused: report.connection_reused,
    write_failed: report.write_failed,
    request_complete: report.request_complete,
    response_started: report.response_started,
    status,
    body_complete: status !== null && report.body_complete,
    broker_timeout: report.broker_timeout !== null,
    body_over_limit: report.body_over_limit,
    contract,
  };
  if (status === null) return observation;
  if (facts.retry_after_ms !== undefined) observation.retry_after_ms = facts.retry_after_ms;
  if (facts.location !== undefined) observation.location = facts.location;
  if (facts.hop !== undefined) observation.hop = facts.hop;
  if (facts.proxy_status !== undefined) observation.proxy_status = facts.proxy_status;
  return observation;
}

/** The remote's own request id, from the first of the usual headers it sent. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'x-correlation-id', 'cf-ray'];

export function remoteRequestId(headers: readonly [string, string][]): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const found = headers.find(([k]) => k.toLowerCase() === name);
    // Bounded: it is echoed into an event, and it is the remote's value, not ours.
    if (found !== undefined && found[1].length > 0) return found[1].slice(0, 200);
  }
  return undefined;
}
