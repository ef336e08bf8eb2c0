import { AnomalyReason } from './anomaly.js';
import { classify } from './classify.js';
import { Code } from './code.js';
import { isBinding, isObject, needCode, optString } from './evolve-data.js';
import { notAfterDispatch } from './evolve-guards.js';
import { endFollowUp, redirectPending } from './evolve-redirect.js';
import { refuse, type EventData } from './evolve-refusal.js';
import { closeBeforeDispatch } from './evolve-verdict.js';
import type { InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';
import { Phase } from './phase.js';
import { Stage } from './stage.js';

// Everything before the first connection: acceptance, validation, approval
// and the credential. A refusal here closes the invocation unsent, unless it
// stops the follow-up of a redirect, whose 3xx already happened.

export function onActionAccepted(s: InvocationState, e: StoredEvent, d: EventData): void {
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
}

export function onPreflightValidated(s: InvocationState, d: EventData): void {
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
}

export function onPreflightRejected(s: InvocationState, d: EventData): void {
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
}

/** APPROVAL_REQUESTED and APPROVAL_GRANTED: the invocation waits at the credential stage. */
export function onApprovalPending(s: InvocationState, type: string): void {
  notAfterDispatch(s, type);
  s.evidence.stage = Stage.credential;
}

export function onApprovalDenied(s: InvocationState, d: EventData): void {
  notAfterDispatch(s, 'APPROVAL_DENIED');
  const code = d['code'] === Code.APPROVAL_TIMEOUT ? Code.APPROVAL_TIMEOUT : Code.APPROVAL_DENIED;
  closeBeforeDispatch(s, Phase.credential_injection, code, classify({ kind: 'preflight', code }).retry_rule, Stage.credential);
}

export function onCredentialAuthorized(s: InvocationState, d: EventData): void {
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
}

export function onCredentialRejected(s: InvocationState, d: EventData): void {
  const code = needCode(d, 'CREDENTIAL_REJECTED');
  const rule = classify({ kind: 'preflight', code }).retry_rule;
  if (redirectPending(s)) endFollowUp(s, Phase.credential_injection, code, rule, Stage.credential);
  else {
    notAfterDispatch(s, 'CREDENTIAL_REJECTED');
    closeBeforeDispatch(s, Phase.credential_injection, code, rule, Stage.credential);
  }
  s.message = optString(d['message']);
  s.action_required = optString(d['action_required']) ?? (code === Code.VAULT_LOCKED ? 'vault_unlock' : null);
}
