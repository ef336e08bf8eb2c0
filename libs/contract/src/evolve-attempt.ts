import { AnomalyReason } from './anomaly.js';
import { dispatchedRow, isSsh, lastDispatchedAttempt } from './evolve-attempt-rows.js';
import { isCount, isObject, isStage, needCode } from './evolve-data.js';
import { mergeEvidence } from './evolve-evidence.js';
import { noNewAttempt } from './evolve-guards.js';
import { endFollowUp, redirectPending } from './evolve-redirect.js';
import { refuse, type EventData } from './evolve-refusal.js';
import { setVerdict } from './evolve-verdict.js';
import type { EvidenceState, InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';
import { Outcome } from './outcome.js';
import { Phase } from './phase.js';
import { Status } from './record-view.js';
import { Retry } from './retry.js';
import { isRetryRule } from './retry-rule.js';
import { Stage } from './stage.js';

// One attempt's life up to its verdict: the lease, connection failures,
// DISPATCH_STARTED and the progress of the request and the response.

export function onLeaseAcquired(s: InvocationState, e: StoredEvent): void {
  if (s.outcome === Outcome.committed && !redirectPending(s)) refuse(AnomalyReason.after_final, 'LEASE_ACQUIRED after the invocation committed');
  s.evidence.generation = e.generation;
}

export function onConnectionFailed(s: InvocationState, e: StoredEvent, d: EventData): void {
  const connectTry = d['connect_try'];
  const stage = d['stage'];
  if (!isCount(connectTry) || connectTry < 1 || !isStage(stage)) {
    refuse(AnomalyReason.malformed, 'CONNECTION_FAILED needs data.connect_try and data.stage');
  }
  const code = needCode(d, 'CONNECTION_FAILED');
  const rule = d['retry_rule'] === undefined ? Retry.backoff : d['retry_rule'];
  if (!isRetryRule(rule)) refuse(AnomalyReason.malformed, 'CONNECTION_FAILED has an invalid data.retry_rule');
  const followUp = redirectPending(s);
  noNewAttempt(s, 'CONNECTION_FAILED', followUp);
  const last = lastDispatchedAttempt(s);
  const attempt = e.attempt >= 1 ? e.attempt : last + 1;
  if (attempt <= last) {
    refuse(AnomalyReason.outcome_regression, `CONNECTION_FAILED for attempt ${attempt}, which was already dispatched`);
  }
  s.attempts.push({ attempt, connect_try: connectTry, stage, outcome: Outcome.not_attempted, code, dispatched: false });
  s.evidence.attempt = attempt;
  s.evidence.connect_try = connectTry;
  s.evidence.generation = e.generation;
  const final = d['final'] === true || (s.binding !== null && connectTry >= s.binding.connect_attempts);
  if (s.dispatches === 0) {
    s.evidence.stage = stage;
    s.phase = Phase.connection_setup;
  }
  if (!final) {
    s.status = Status.pending;
    return;
  }
  if (followUp) {
    // The redirect was not followed after all: the record ends with the
    // follow-up's own evidence, which shows nothing was sent.
    s.evidence = {
      source: e.source,
      stage,
      dispatch_started: false,
      request_headers_sent: false,
      request_complete: false,
      response_headers_received: false,
      response_complete: false,
      attempt,
      connect_try: connectTry,
      generation: e.generation,
      dispatch_seq: null,
    };
    endFollowUp(s, Phase.connection_setup, code, rule, stage);
    return;
  }
  s.status = Status.resolved;
  // An earlier dispatched attempt decides the invocation; a later
  // connection failure only adds its row.
  if (s.dispatches === 0) setVerdict(s, Phase.connection_setup, code, rule, null);
}

export function onDispatchStarted(s: InvocationState, e: StoredEvent, d: EventData): void {
  const redirect = s.redirect ?? null;
  noNewAttempt(s, 'DISPATCH_STARTED', redirect !== null);
  const connectTry = d['connect_try'];
  if (!isCount(connectTry) || connectTry < 1) refuse(AnomalyReason.malformed, 'DISPATCH_STARTED needs data.connect_try');
  const last = lastDispatchedAttempt(s);
  if (e.attempt < 1 || e.attempt <= last) {
    refuse(AnomalyReason.attempt_mismatch, `DISPATCH_STARTED for attempt ${e.attempt}, after attempt ${last}`);
  }
  if (redirect !== null && e.attempt !== redirect.attempt + 1) {
    refuse(AnomalyReason.attempt_mismatch, `DISPATCH_STARTED for attempt ${e.attempt} does not follow the redirect of attempt ${redirect.attempt}`);
  }
  s.redirect = null;
  const stage = isSsh(s) ? Stage.ssh_channel_open : Stage.request_write;
  s.dispatches += 1;
  s.attempts.push({ attempt: e.attempt, connect_try: connectTry, stage, outcome: Outcome.unknown, code: null, dispatched: true });
  const evidence: EvidenceState = {
    source: e.source,
    stage,
    dispatch_started: true,
    request_headers_sent: false,
    request_complete: false,
    response_headers_received: false,
    response_complete: false,
    attempt: e.attempt,
    connect_try: connectTry,
    generation: e.generation,
    dispatch_seq: e.seq,
  };
  const connection = d['connection'];
  if (isObject(connection) && typeof connection['id'] === 'string' && typeof connection['reused'] === 'boolean') {
    const conn: NonNullable<EvidenceState['connection']> = { id: connection['id'], reused: connection['reused'] };
    if (typeof connection['remote_address'] === 'string') conn.remote_address = connection['remote_address'];
    if (typeof connection['tls_peer_sha256'] === 'string') conn.tls_peer_sha256 = connection['tls_peer_sha256'];
    evidence.connection = conn;
  }
  s.evidence = evidence;
  s.status = Status.pending;
  s.phase = Phase.remote_execution;
  s.code = null;
  s.retry_rule = null;
  s.retry_after_ms = null;
  s.field = null;
  s.message = null;
  s.action_required = null;
}

export function onRequestSent(s: InvocationState, e: StoredEvent, d: EventData): void {
  const row = dispatchedRow(s, e, 'REQUEST_SENT');
  const complete = d['request_complete'] === true;
  s.evidence.request_headers_sent = d['request_headers_sent'] !== false;
  s.evidence.request_complete = complete;
  if (row.outcome === Outcome.unknown && row.code === null) {
    const ssh = isSsh(s);
    row.stage = complete ? (ssh ? Stage.exec_request : Stage.response_headers) : ssh ? Stage.exec_request : Stage.request_write;
    s.evidence.stage = row.stage;
  }
}

export function onResponseStarted(s: InvocationState, e: StoredEvent, d: EventData): void {
  const row = dispatchedRow(s, e, 'REMOTE_RESPONSE_STARTED');
  s.evidence.request_headers_sent = true;
  s.evidence.response_headers_received = true;
  mergeEvidence(s.evidence, d);
  if (row.outcome === Outcome.unknown && row.code === null) {
    row.stage = isSsh(s) ? Stage.exec_running : Stage.response_body;
    s.evidence.stage = row.stage;
  }
}

export function onRetryScheduled(s: InvocationState): void {
  noNewAttempt(s, 'RETRY_SCHEDULED');
  s.status = Status.pending;
}
