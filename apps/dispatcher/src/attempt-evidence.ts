import type { Classification } from '@postern/contract';
import type { HttpExchangeReport } from '@postern/transport-http';
import type { ResponseFacts } from './observation-from-report.js';

/**
 * The `data` of the events that close an attempt: the classification, then
 * the evidence flags of CONTRACT.md section 4. Nothing here comes from a
 * header value the broker set or from a body.
 */
export function classificationData(c: Classification): Record<string, unknown> {
  const data: Record<string, unknown> = {
    phase: c.phase,
    outcome: c.outcome,
    code: c.code,
    retry_rule: c.retry_rule,
    stage: c.stage,
  };
  if (c.retry_after_ms !== undefined) data['retry_after_ms'] = c.retry_after_ms;
  if (c.complete !== undefined) data['complete'] = c.complete;
  if (c.async_operation !== undefined) data['async_operation'] = c.async_operation;
  if (c.hop !== undefined) data['hop'] = c.hop;
  if (c.proxy_status !== undefined) data['proxy_status'] = c.proxy_status;
  if (c.recovered !== undefined) data['recovered'] = c.recovered;
  if (c.intervention_required !== undefined) data['intervention_required'] = c.intervention_required;
  if (c.action_required !== undefined) data['action_required'] = c.action_required;
  return data;
}

export function exchangeFlags(report: HttpExchangeReport): Record<string, unknown> {
  return {
    request_headers_sent: report.request_headers_sent,
    request_complete: report.request_complete,
    response_headers_received: report.headers_complete,
    response_complete: report.headers_complete && report.body_complete,
  };
}

/** Evidence from the response head that every closing event repeats when it is known. */
function responseEvidence(report: HttpExchangeReport, facts: ResponseFacts): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (report.headers_complete && report.status !== null) data['response_status'] = report.status;
  if (report.framing !== null) data['framing'] = report.framing;
  if (facts.remote_request_id !== undefined) data['remote_request_id'] = facts.remote_request_id;
  return data;
}

/** REMOTE_RESPONSE_COMPLETE: a verdict on a whole response, with where its result is stored. */
export function completeData(
  c: Classification,
  report: HttpExchangeReport,
  facts: ResponseFacts,
  stored: { result_object: string; result_digest: string },
): Record<string, unknown> {
  return {
    ...classificationData(c),
    ...exchangeFlags(report),
    ...responseEvidence(report, facts),
    response_digest: stored.result_digest,
    result_object: stored.result_object,
  };
}

/** REMOTE_OUTCOME_UNKNOWN: what was seen, and the transport's own diagnostic for operators. */
export function unknownData(c: Classification, report: HttpExchangeReport, facts: ResponseFacts): Record<string, unknown> {
  const data: Record<string, unknown> = {
    ...classificationData(c),
    ...exchangeFlags(report),
    ...responseEvidence(report, facts),
    diagnostic: diagnosticOf(report),
  };
  if (report.broker_timeout !== null) data['broker_timeout'] = report.broker_timeout;
  return data;
}

export function diagnosticOf(report: HttpExchangeReport): string {
  return report.diagnostic !== undefined ? `${report.ended_by}:${report.diagnostic}` : report.ended_by;
}

/** REQUEST_SENT. */
export function requestSentData(flags: { request_headers_sent: boolean; request_complete: boolean }): Record<string, unknown> {
  return { request_headers_sent: flags.request_headers_sent, request_complete: flags.request_complete };
}

/** The framing a response head announces (HEAD, 204 and 304 responses have no body to frame). */
export function announcedFraming(headers: readonly [string, string][]): 'content-length' | 'chunked' | 'close' {
  const te = headers.find(([k]) => k.toLowerCase() === 'transfer-encoding')?.[1];
  if (te !== undefined && /chunked\s*$/i.test(te)) return 'chunked';
  if (headers.some(([k]) => k.toLowerCase() === 'content-length')) return 'content-length';
  return 'close';
}

/** REMOTE_RESPONSE_STARTED, from the final response head. */
export function responseStartedData(status: number, headers: readonly [string, string][], facts: ResponseFacts): Record<string, unknown> {
  const data: Record<string, unknown> = { response_status: status, framing: announcedFraming(headers) };
  if (facts.remote_request_id !== undefined) data['remote_request_id'] = facts.remote_request_id;
  if (facts.hop !== undefined) data['hop'] = facts.hop;
  if (facts.proxy_status !== undefined) data['proxy_status'] = facts.proxy_status;
  return data;
}
