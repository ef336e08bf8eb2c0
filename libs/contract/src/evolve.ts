import { Action } from './action-command.js';
import { AnomalyReason, type Anomaly } from './anomaly.js';
import type { Binding } from './binding.js';
import { classify } from './classify.js';
import { CODES, Code } from './code.js';
import { EVENT_TYPES, EventType } from './event-type.js';
import { EVIDENCE_SOURCES } from './evidence-source.js';
import type { AttemptState, EvidenceState, InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';
import { OUTCOMES, Outcome } from './outcome.js';
import { PHASES, Phase } from './phase.js';
import { Status } from './record-view.js';
import { Retry } from './retry.js';
import { DeferredRetry, isRetryRule, type RetryRule } from './retry-rule.js';
import { STAGES, Stage } from './stage.js';

export type EvolveResult = { ok: true; state: InvocationState } | { ok: false; anomaly: Anomaly };

type Data = Record<string, unknown>;

class Refused {
  constructor(readonly anomaly: Anomaly) {}
}

function refuse(reason: AnomalyReason, message: string): never {
  throw new Refused({ reason, message });
}

/**
 * The fold every service shares: one journal event applied to the state of
 * its invocation. An event that would break an invariant of CONTRACT.md
 * section 6 (a gap, a regression, a dispatch after the end) is refused as an
 * anomaly and the state is left as it was. Never throws.
 */
export function evolve(state: InvocationState, event: StoredEvent): EvolveResult {
  try {
    return { ok: true, state: apply(state, event) };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, anomaly: err.anomaly };
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, anomaly: { reason: AnomalyReason.malformed, message: `event could not be applied: ${message}` } };
  }
}

function apply(state: InvocationState, raw: unknown): InvocationState {
  const event = checkEnvelope(raw);
  if (event.invocation_id !== state.invocation_id) {
    refuse(AnomalyReason.wrong_invocation, `event is for ${event.invocation_id}, not ${state.invocation_id}`);
  }
  if (event.n !== state.journal.events + 1) {
    refuse(AnomalyReason.sequence_gap, `expected event n=${state.journal.events + 1}, got n=${event.n}`);
  }
  if (state.journal.events === 0 && event.type !== EventType.ACTION_ACCEPTED) {
    refuse(AnomalyReason.not_accepted_first, `the first event must be ACTION_ACCEPTED, got ${event.type}`);
  }
  if (state.closed_before_dispatch) {
    refuse(AnomalyReason.after_final, `${event.type} after the invocation was closed before dispatch`);
  }
  const before = state.outcome;
  const s = clone(state);
  APPLY[event.type](s, event, event.data);
  s.outcome = aggregate(s);
  if (before === Outcome.committed && s.outcome !== Outcome.committed) {
    refuse(AnomalyReason.outcome_regression, `${event.type} would move a committed invocation to ${s.outcome}`);
  }
  if (before !== Outcome.not_attempted && s.outcome === Outcome.not_attempted) {
    refuse(AnomalyReason.outcome_regression, `${event.type} would move a dispatched invocation back to not_attempted`);
  }
  if (s.journal.events === 0) s.journal.first_seq = event.seq;
  s.journal.last_seq = event.seq;
  s.journal.events += 1;
  return s;
}

function checkEnvelope(raw: unknown): StoredEvent {
  if (!isObject(raw)) refuse(AnomalyReason.malformed, 'event is not an object');
  const e = raw as Data;
  const problems: string[] = [];
  if (typeof e['type'] !== 'string' || !(EVENT_TYPES as readonly string[]).includes(e['type'])) problems.push('type');
  if (typeof e['invocation_id'] !== 'string') problems.push('invocation_id');
  if (!isCount(e['n']) || (e['n'] as number) < 1) problems.push('n');
  if (!isCount(e['attempt'])) problems.push('attempt');
  if (!isCount(e['generation'])) problems.push('generation');
  if (!isCount(e['seq'])) problems.push('seq');
  if (typeof e['at'] !== 'string') problems.push('at');
  if (typeof e['source'] !== 'string' || !(EVIDENCE_SOURCES as readonly string[]).includes(e['source'])) problems.push('source');
  if (!isObject(e['data'])) problems.push('data');
  if (problems.length > 0) refuse(AnomalyReason.malformed, `event envelope has invalid ${problems.join(', ')}`);
  return raw as unknown as StoredEvent;
}

type Handler = (s: InvocationState, e: StoredEvent, d: Data) => void;

const APPLY: Record<EventType, Handler> = {
  [EventType.ACTION_ACCEPTED]: (s, e, d) => {
    if (s.accepted) refuse(AnomalyReason.malformed, 'ACTION_ACCEPTED may only come first');
    const id = d['client_request_id'];
    if (typeof id !== 'string' || id.length === 0) refuse(AnomalyReason.malformed, 'ACTION_ACCEPTED needs data.client_request_id');
    s.accepted = true;
    s.client_request_id = id;
    s.accepted_at = e.at;
    s.caller = optString(d['caller']);
    s.action = optString(d['action']);
    s.command_digest = optString(d['command_digest']);
    s.command = d['command'] ?? null;
    s.deadline_at = optString(d['deadline_at']);
    s.phase = Phase.validation;
    s.evidence.stage = Stage.validation;
  },

  [EventType.PREFLIGHT_VALIDATED]: (s, _e, d) => {
    if (s.binding !== null || s.dispatches > 0) refuse(AnomalyReason.malformed, 'PREFLIGHT_VALIDATED after the invocation was bound');
    const binding = d['binding'];
    const fingerprint = d['request_fingerprint'];
    if (!isBinding(binding) || typeof fingerprint !== 'string') {
      refuse(AnomalyReason.malformed, 'PREFLIGHT_VALIDATED needs data.binding and data.request_fingerprint');
    }
    s.binding = binding;
    s.request_fingerprint = fingerprint;
    s.credential = {
      id: binding.credential.id,
      version: binding.credential.version,
      injection: binding.credential.injection,
    };
    s.phase = Phase.credential_injection;
    s.evidence.stage = Stage.credential;
  },

  [EventType.PREFLIGHT_REJECTED]: (s, _e, d) => {
    const code = needCode(d, 'PREFLIGHT_REJECTED');
    if (redirectPending(s)) {
      // The follow-up of a redirect failed its re-check: it is not sent, and
      // the committed 3xx before it stays what happened.
      endFollowUp(s, Phase.validation, code, classify({ kind: 'preflight', code }).retry_rule, Stage.validation);
      s.field = optString(d['field']);
      s.message = optString(d['message']);
      return;
    }
    notAfterDispatch(s, 'PREFLIGHT_REJECTED');
    closeBeforeDispatch(s, Phase.validation, code, classify({ kind: 'preflight', code }).retry_rule, Stage.validation);
    s.field = optString(d['field']);
    s.message = optString(d['message']);
  },

  [EventType.APPROVAL_REQUESTED]: (s) => {
    notAfterDispatch(s, 'APPROVAL_REQUESTED');
    s.evidence.stage = Stage.credential;
  },

  [EventType.APPROVAL_GRANTED]: (s) => {
    notAfterDispatch(s, 'APPROVAL_GRANTED');
    s.evidence.stage = Stage.credential;
  },

  [EventType.APPROVAL_DENIED]: (s, _e, d) => {
    notAfterDispatch(s, 'APPROVAL_DENIED');
    const code = d['code'] === Code.APPROVAL_TIMEOUT ? Code.APPROVAL_TIMEOUT : Code.APPROVAL_DENIED;
    closeBeforeDispatch(s, Phase.credential_injection, code, classify({ kind: 'preflight', code }).retry_rule, Stage.credential);
  },

  [EventType.CREDENTIAL_AUTHORIZED]: (s, _e, d) => {
    const c = d['credential'];
    if (!isObject(c) || typeof c['id'] !== 'string') refuse(AnomalyReason.malformed, 'CREDENTIAL_AUTHORIZED needs data.credential.id');
    s.credential = {
      id: c['id'],
      version: typeof c['version'] === 'number' ? c['version'] : null,
      injection: typeof c['injection'] === 'string' ? c['injection'] : null,
    };
    if (s.dispatches === 0) {
      s.phase = Phase.connection_setup;
      s.evidence.stage = Stage.tcp_connect;
    }
  },

  [EventType.CREDENTIAL_REJECTED]: (s, _e, d) => {
    const code = needCode(d, 'CREDENTIAL_REJECTED');
    const rule = classify({ kind: 'preflight', code }).retry_rule;
    if (redirectPending(s)) endFollowUp(s, Phase.credential_injection, code, rule, Stage.credential);
    else {
      notAfterDispatch(s, 'CREDENTIAL_REJECTED');
      closeBeforeDispatch(s, Phase.credential_injection, code, rule, Stage.credential);
    }
    s.message = optString(d['message']);
    s.action_required = optString(d['action_required']) ?? (code === Code.VAULT_LOCKED ? 'vault_unlock' : null);
  },

  [EventType.CONNECTION_FAILED]: (s, e, d) => {
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
  },

  [EventType.LEASE_ACQUIRED]: (s, e) => {
    if (s.outcome === Outcome.committed && !redirectPending(s)) refuse(AnomalyReason.after_final, 'LEASE_ACQUIRED after the invocation committed');
    s.evidence.generation = e.generation;
  },

  [EventType.DISPATCH_STARTED]: (s, e, d) => {
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
  },

  [EventType.REQUEST_SENT]: (s, e, d) => {
    const row = dispatchedRow(s, e, 'REQUEST_SENT');
    const complete = d['request_complete'] === true;
    s.evidence.request_headers_sent = d['request_headers_sent'] !== false;
    s.evidence.request_complete = complete;
    if (row.outcome === Outcome.unknown && row.code === null) {
      const ssh = isSsh(s);
      row.stage = complete ? (ssh ? Stage.exec_request : Stage.response_headers) : ssh ? Stage.exec_request : Stage.request_write;
      s.evidence.stage = row.stage;
    }
  },

  [EventType.REMOTE_RESPONSE_STARTED]: (s, e, d) => {
    const row = dispatchedRow(s, e, 'REMOTE_RESPONSE_STARTED');
    s.evidence.request_headers_sent = true;
    s.evidence.response_headers_received = true;
    mergeEvidence(s.evidence, d);
    if (row.outcome === Outcome.unknown && row.code === null) {
      row.stage = isSsh(s) ? Stage.exec_running : Stage.response_body;
      s.evidence.stage = row.stage;
    }
  },

  [EventType.REMOTE_RESPONSE_COMPLETE]: (s, e, d) => {
    resolveAttempt(s, e, d, 'REMOTE_RESPONSE_COMPLETE', null);
    s.evidence.request_headers_sent = d['request_headers_sent'] !== false;
    s.evidence.request_complete = d['request_complete'] !== false;
    s.evidence.response_headers_received = true;
    s.evidence.response_complete = d['response_complete'] !== false;
    s.redirect = null;
    const redirect = redirectOf(d);
    if (redirect === null) return;
    const row = dispatchedRow(s, e, 'REMOTE_RESPONSE_COMPLETE');
    // Followed only from the latest attempt's clean commit, within the
    // budget and never after a cancel: otherwise the 3xx is the last word,
    // as it is under `redirects: none`.
    if (
      row.outcome === Outcome.committed &&
      row.code === null &&
      e.attempt === lastDispatchedAttempt(s) &&
      !s.cancelled &&
      s.binding !== null &&
      s.dispatches < s.binding.budget
    ) {
      s.redirect = { attempt: e.attempt, ...redirect };
      s.status = Status.pending;
    }
  },

  [EventType.REMOTE_OUTCOME_UNKNOWN]: (s, e, d) => {
    resolveAttempt(s, e, d, 'REMOTE_OUTCOME_UNKNOWN', Outcome.unknown);
  },

  [EventType.RECOVERY_OBSERVED]: (s, e, d) => {
    resolveAttempt(s, e, d, 'RECOVERY_OBSERVED', Outcome.unknown);
    s.evidence.recovered = true;
  },

  [EventType.CALLER_CANCELLED]: (s, _e, d) => {
    const phase = d['phase'] === undefined ? s.phase : d['phase'];
    if (!isPhase(phase)) refuse(AnomalyReason.malformed, 'CALLER_CANCELLED has an invalid data.phase');
    if (s.dispatches === 0) {
      s.cancelled = true;
      closeBeforeDispatch(s, phase, Code.CALLER_CANCELLED, Retry.never, s.evidence.stage);
      return;
    }
    if (redirectPending(s)) {
      // The follow-up was not dispatched: no further attempt is made.
      s.cancelled = true;
      endFollowUp(s, phase, Code.CALLER_CANCELLED, Retry.never, s.evidence.stage);
      return;
    }
    const followUpInFlight = s.outcome === Outcome.committed && s.status === Status.pending;
    if (s.outcome === Outcome.committed && !followUpInFlight) {
      refuse(AnomalyReason.after_final, 'CALLER_CANCELLED after the invocation committed');
    }
    s.cancelled = true;
    s.status = Status.resolved;
    if (followUpInFlight) {
      setVerdict(s, Phase.remote_execution, Code.CALLER_CANCELLED, DeferredRetry.rule_u, null);
      return;
    }
    // The remote result may still arrive and be classified; until then the
    // caller is told it cancelled and that the outcome is open.
    if (s.outcome === Outcome.unknown) setVerdict(s, Phase.remote_execution, Code.CALLER_CANCELLED, DeferredRetry.rule_u, null);
  },

  [EventType.RETRY_SCHEDULED]: (s) => {
    noNewAttempt(s, 'RETRY_SCHEDULED');
    s.status = Status.pending;
  },

  [EventType.RECONCILE_OBSERVED]: (s, e, d) => observe(s, e, d, 'RECONCILE_OBSERVED'),
  [EventType.OPERATOR_ATTESTED]: (s, e, d) => observe(s, e, d, 'OPERATOR_ATTESTED'),

  [EventType.RESULT_COMMITTED]: (s, e, d) => {
    const digest = d['result_digest'];
    if (typeof digest !== 'string') refuse(AnomalyReason.malformed, 'RESULT_COMMITTED needs data.result_digest');
    if (s.dispatches === 0) refuse(AnomalyReason.attempt_mismatch, 'RESULT_COMMITTED before any dispatch');
    // A redirect's 3xx may be settled after the final response: the later attempt's result stands.
    if (s.result !== null && (s.result_attempt ?? 0) > e.attempt) return;
    const object = d['result_object'];
    s.result = typeof object === 'string' ? { result_digest: digest, result_object: object } : { result_digest: digest };
    s.result_attempt = e.attempt;
  },

  [EventType.RESULT_DELIVERY_FAILED]: (s) => {
    if (s.dispatches === 0) refuse(AnomalyReason.attempt_mismatch, 'RESULT_DELIVERY_FAILED before any dispatch');
    s.delivery_failed = true;
    s.status = Status.resolved;
  },

  [EventType.RESULT_DELIVERED]: (s, _e, d) => {
    if (typeof d['result_digest'] !== 'string') refuse(AnomalyReason.malformed, 'RESULT_DELIVERED needs data.result_digest');
    if (s.dispatches === 0) refuse(AnomalyReason.attempt_mismatch, 'RESULT_DELIVERED before any dispatch');
    s.delivered = true;
    s.delivery_failed = false;
  },
};

/** REMOTE_RESPONSE_COMPLETE, REMOTE_OUTCOME_UNKNOWN and RECOVERY_OBSERVED: a dispatched attempt's verdict. */
function resolveAttempt(s: InvocationState, e: StoredEvent, d: Data, type: string, fixed: Outcome | null): void {
  const outcome = d['outcome'] === undefined && fixed !== null ? fixed : d['outcome'];
  if (typeof outcome !== 'string' || !(OUTCOMES as readonly string[]).includes(outcome)) {
    refuse(AnomalyReason.malformed, `${type} needs data.outcome`);
  }
  if (outcome === Outcome.not_attempted) refuse(AnomalyReason.outcome_regression, `${type} says not_attempted after dispatch`);
  if (fixed !== null && outcome !== fixed) refuse(AnomalyReason.malformed, `${type} must carry outcome ${fixed}`);
  const o = outcome as Outcome;
  const codeRaw = d['code'] === undefined ? (fixed !== null ? Code.REMOTE_OUTCOME_UNKNOWN : null) : d['code'];
  if (codeRaw !== null && !isCode(codeRaw)) refuse(AnomalyReason.malformed, `${type} has an invalid data.code`);
  if (codeRaw === null && o !== Outcome.committed) refuse(AnomalyReason.malformed, `${type} without a code must be committed`);
  const ruleRaw = d['retry_rule'] === undefined ? (codeRaw === null ? Retry.never : DeferredRetry.rule_u) : d['retry_rule'];
  if (!isRetryRule(ruleRaw)) refuse(AnomalyReason.malformed, `${type} has an invalid data.retry_rule`);
  const phaseRaw = d['phase'] === undefined ? Phase.remote_execution : d['phase'];
  if (!isPhase(phaseRaw)) refuse(AnomalyReason.malformed, `${type} has an invalid data.phase`);

  const row = dispatchedRow(s, e, type);
  if (row.outcome !== Outcome.unknown && row.outcome !== o) {
    refuse(AnomalyReason.outcome_regression, `${type} would move attempt ${row.attempt} from ${row.outcome} to ${o}`);
  }
  if (s.observed_outcome !== null && o !== s.observed_outcome) {
    refuse(AnomalyReason.outcome_regression, `${type} contradicts the ${s.observed_outcome} outcome already observed`);
  }
  const stage = isStage(d['stage']) ? d['stage'] : row.stage;
  row.outcome = o;
  row.code = codeRaw;
  row.stage = stage;
  s.evidence.stage = stage;
  s.evidence.source = e.source;
  mergeEvidence(s.evidence, d);
  s.status = Status.resolved;
  setVerdict(s, phaseRaw, codeRaw, ruleRaw, isCount(d['retry_after_ms']) ? d['retry_after_ms'] : null);
  if (d['action_required'] !== undefined) s.action_required = optString(d['action_required']);
}

/** RECONCILE_OBSERVED and OPERATOR_ATTESTED: a later observer settles an unknown outcome. */
function observe(s: InvocationState, e: StoredEvent, d: Data, type: string): void {
  const outcome = d['outcome'];
  if (outcome !== Outcome.committed && outcome !== Outcome.rejected) {
    refuse(AnomalyReason.malformed, `${type} needs data.outcome committed or rejected`);
  }
  if (s.dispatches === 0) refuse(AnomalyReason.outcome_regression, `${type} for an invocation that was never dispatched`);
  if (s.outcome !== Outcome.unknown && s.outcome !== outcome) {
    refuse(AnomalyReason.outcome_regression, `${type} would move a ${s.outcome} invocation to ${outcome}`);
  }
  s.observed_outcome = outcome;
  if (outcome === Outcome.rejected) {
    for (const row of s.attempts) if (row.dispatched && row.outcome === Outcome.unknown) row.outcome = Outcome.rejected;
  }
  s.evidence.source = e.source;
  s.status = Status.resolved;
  if (outcome === Outcome.committed) {
    setVerdict(s, Phase.remote_execution, null, Retry.never, null);
  } else if (s.code !== null) {
    // The remote did not act; a new attempt is safe unless the caller cancelled.
    s.retry_rule = s.cancelled ? Retry.never : Retry.backoff;
  }
}

function setVerdict(s: InvocationState, phase: Phase, code: Code | null, rule: RetryRule, retryAfterMs: number | null): void {
  s.phase = phase;
  s.code = code;
  s.retry_rule = rule;
  s.retry_after_ms = retryAfterMs;
  s.field = null;
  s.message = null;
  s.action_required = null;
}

function closeBeforeDispatch(s: InvocationState, phase: Phase, code: Code, rule: RetryRule, stage: Stage): void {
  setVerdict(s, phase, code, rule, null);
  s.status = Status.resolved;
  s.closed_before_dispatch = true;
  s.evidence.stage = stage;
}

/** Outcome aggregation of CONTRACT.md section 4. */
function aggregate(s: InvocationState): Outcome {
  if (s.observed_outcome === Outcome.committed) return Outcome.committed;
  const dispatched = s.attempts.filter((r) => r.dispatched);
  if (dispatched.some((r) => r.outcome === Outcome.committed)) return Outcome.committed;
  if (dispatched.length === 0) return Outcome.not_attempted;
  if (dispatched.some((r) => r.outcome === Outcome.unknown)) return Outcome.unknown;
  return Outcome.rejected;
}

function notAfterDispatch(s: InvocationState, type: string): void {
  if (s.dispatches > 0) refuse(AnomalyReason.outcome_regression, `${type} implies not_attempted after DISPATCH_STARTED`);
}

/**
 * After a commit, or a cancel after dispatch, no further attempt is made;
 * the one exception is the follow-up of a redirect the fold recorded.
 */
function noNewAttempt(s: InvocationState, type: string, followsRedirect = false): void {
  if (s.outcome === Outcome.committed && !followsRedirect) refuse(AnomalyReason.after_final, `${type} after the invocation committed`);
  if (s.cancelled) refuse(AnomalyReason.after_final, `${type} after the caller cancelled`);
}

/** A followed redirect whose follow-up has not crossed DISPATCH_STARTED yet. */
function redirectPending(s: InvocationState): boolean {
  return s.redirect !== undefined && s.redirect !== null;
}

/** The follow-up of a redirect stopped before dispatch: the invocation keeps its outcome and says why. */
function endFollowUp(s: InvocationState, phase: Phase, code: Code, rule: RetryRule, stage: Stage): void {
  s.redirect = null;
  s.status = Status.resolved;
  s.evidence.stage = stage;
  setVerdict(s, phase, code, rule, null);
}

/** `data.redirect` of REMOTE_RESPONSE_COMPLETE: a 3xx status and a path-absolute Location. */
function redirectOf(d: Data): { status: number; location: string } | null {
  const r = d['redirect'];
  if (r === undefined) return null;
  if (!isObject(r) || !isCount(r['status']) || r['status'] < 300 || r['status'] > 399 || typeof r['location'] !== 'string' || !r['location'].startsWith('/') || r['location'].startsWith('//')) {
    refuse(AnomalyReason.malformed, 'REMOTE_RESPONSE_COMPLETE has an invalid data.redirect');
  }
  return { status: r['status'], location: r['location'] };
}

function lastDispatchedAttempt(s: InvocationState): number {
  let last = 0;
  for (const row of s.attempts) if (row.dispatched && row.attempt > last) last = row.attempt;
  return last;
}

function dispatchedRow(s: InvocationState, e: StoredEvent, type: string): AttemptState {
  const row = s.attempts.find((r) => r.dispatched && r.attempt === e.attempt);
  if (row === undefined) refuse(AnomalyReason.attempt_mismatch, `${type} for attempt ${e.attempt}, which was not dispatched`);
  return row;
}

const EVIDENCE_STRINGS = ['response_digest', 'result_object', 'remote_request_id', 'hop', 'exit_signal'] as const;
const EVIDENCE_BOOLEANS = [
  'request_headers_sent',
  'request_complete',
  'response_headers_received',
  'response_complete',
  'exec_accepted',
  'stdout_complete',
  'stderr_complete',
  'intervention_required',
] as const;
const FRAMINGS = ['content-length', 'chunked', 'close'];

/** Copies the known evidence fields of an event's data; anything else (diagnostics) stays in the journal. */
function mergeEvidence(ev: EvidenceState, d: Data): void {
  for (const key of EVIDENCE_STRINGS) if (typeof d[key] === 'string') ev[key] = d[key];
  for (const key of EVIDENCE_BOOLEANS) if (typeof d[key] === 'boolean') ev[key] = d[key];
  if (isCount(d['response_status'])) ev.response_status = d['response_status'];
  if (typeof d['exit_status'] === 'number' && Number.isInteger(d['exit_status'])) ev.exit_status = d['exit_status'];
  if (typeof d['framing'] === 'string' && FRAMINGS.includes(d['framing'])) ev.framing = d['framing'] as EvidenceState['framing'];
  if (Array.isArray(d['proxy_status'])) ev.proxy_status = d['proxy_status'];
  const ao = d['async_operation'];
  if (isObject(ao) && typeof ao['status_url'] === 'string') {
    ev.async_operation = typeof ao['job_id'] === 'string' ? { status_url: ao['status_url'], job_id: ao['job_id'] } : { status_url: ao['status_url'] };
  }
  if (d['recovered'] === true) ev.recovered = true;
}

function clone(s: InvocationState): InvocationState {
  return {
    ...s,
    evidence: { ...s.evidence },
    attempts: s.attempts.map((r) => ({ ...r })),
    journal: { ...s.journal },
  };
}

function isSsh(s: InvocationState): boolean {
  return (s.binding?.action ?? s.action) === Action.ssh_exec;
}

function needCode(d: Data, type: string): Code {
  const code = d['code'];
  if (!isCode(code)) refuse(AnomalyReason.malformed, `${type} needs a valid data.code`);
  return code;
}

function isObject(v: unknown): v is Data {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

function isCode(v: unknown): v is Code {
  return typeof v === 'string' && (CODES as readonly string[]).includes(v);
}

function isStage(v: unknown): v is Stage {
  return typeof v === 'string' && (STAGES as readonly string[]).includes(v);
}

function isPhase(v: unknown): v is Phase {
  return typeof v === 'string' && (PHASES as readonly string[]).includes(v);
}

function optString(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function isBinding(v: unknown): v is Binding {
  if (!isObject(v)) return false;
  const c = v['credential'];
  return (
    typeof v['action'] === 'string' &&
    typeof v['target'] === 'string' &&
    isObject(c) &&
    typeof c['id'] === 'string' &&
    isCount(v['budget']) &&
    isCount(v['connect_attempts'])
  );
}

