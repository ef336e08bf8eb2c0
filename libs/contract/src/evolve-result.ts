import { AnomalyReason } from './anomaly.js';
import { refuse, type EventData } from './evolve-refusal.js';
import type { InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';
import { Status } from './record-view.js';

// The stored result and its delivery to the caller: they follow a dispatch
// and never change the outcome.

export function onResultCommitted(s: InvocationState, e: StoredEvent, d: EventData): void {
  const digest = d['result_digest'];
  if (typeof digest !== 'string') refuse(AnomalyReason.malformed, 'RESULT_COMMITTED needs data.result_digest');
  if (s.dispatches === 0) refuse(AnomalyReason.attempt_mismatch, 'RESULT_COMMITTED before any dispatch');
  // A redirect's 3xx may be settled after the final response: the later attempt's result stands.
  if (s.result !== null && (s.result_attempt ?? 0) > e.attempt) return;
  const object = d['result_object'];
  s.result = typeof object === 'string' ? { result_digest: digest, result_object: object } : { result_digest: digest };
  s.result_attempt = e.attempt;
}

export function onResultDeliveryFailed(s: InvocationState): void {
  if (s.dispatches === 0) refuse(AnomalyReason.attempt_mismatch, 'RESULT_DELIVERY_FAILED before any dispatch');
  s.delivery_failed = true;
  s.status = Status.resolved;
}

export function onResultDelivered(s: InvocationState, d: EventData): void {
  if (typeof d['result_digest'] !== 'string') refuse(AnomalyReason.malformed, 'RESULT_DELIVERED needs data.result_digest');
  if (s.dispatches === 0) refuse(AnomalyReason.attempt_mismatch, 'RESULT_DELIVERED before any dispatch');
  s.delivered = true;
  s.delivery_failed = false;
}
