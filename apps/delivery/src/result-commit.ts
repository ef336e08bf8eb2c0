import {
  classify,
  EventType,
  Outcome,
  ServiceName,
  type JournalEvent,
  type StoredEvent,
} from '@postern/contract';
import { verifyStoredResult, type EventDraft, type JournalResources } from '@postern/journal';
import { responseDigestOf, resultObjectOf } from './result-history.js';

/** Why a complete response could not be vouched for; kept in the event for operators. */
export const StoreFailure = {
  no_result_object: 'no_result_object',
  no_digest: 'no_digest',
  foreign_object: 'foreign_object',
  missing: 'missing',
  digest_mismatch: 'digest_mismatch',
  stream_missing: 'stream_missing',
  stream_mismatch: 'stream_mismatch',
} as const;
export type StoreFailure = (typeof StoreFailure)[keyof typeof StoreFailure];

export type StoreCheck = { ok: true; resultObject: string; resultDigest: string } | { ok: false; reason: StoreFailure };

/**
 * Re-reads what the dispatcher stored for `response` and checks it against
 * the digest the journal recorded: the metadata's digest, then every stream.
 * Throws only when the store cannot be read now (the event is retried later).
 */
export async function checkStoredResult(res: JournalResources, response: StoredEvent): Promise<StoreCheck> {
  const resultObject = resultObjectOf(response);
  if (resultObject === null) return { ok: false, reason: StoreFailure.no_result_object };
  const resultDigest = responseDigestOf(response);
  if (resultDigest === null) return { ok: false, reason: StoreFailure.no_digest };
  // Objects are named after their invocation; anything else is not this invocation's result.
  if (!resultObject.startsWith(`${response.invocation_id}.`)) return { ok: false, reason: StoreFailure.foreign_object };
  const check = await verifyStoredResult(res, resultObject, resultDigest);
  if (!check.ok) return { ok: false, reason: check.reason };
  return { ok: true, resultObject, resultDigest };
}

function draftFor(response: StoredEvent, type: EventType, at: string, data: Record<string, unknown>): EventDraft {
  return {
    type,
    attempt: response.attempt,
    generation: response.generation,
    at,
    // The fact is about the remote's response, as the event it settles says.
    source: response.source,
    service: ServiceName.delivery,
    data,
  };
}

export function commitDraft(response: StoredEvent, check: { resultObject: string; resultDigest: string }, at: string): EventDraft {
  return draftFor(response, EventType.RESULT_COMMITTED, at, {
    result_digest: check.resultDigest,
    result_object: check.resultObject,
  });
}

/**
 * CONTRACT.md section 6, "remote result complete, result store failed":
 * REMOTE_RESPONSE_COMPLETE is durable (it is what is being settled), so the
 * outcome it carried is kept; retry `never`, `intervention_required`.
 */
export function storeFailureDraft(response: StoredEvent, reason: StoreFailure, at: string): EventDraft {
  const raw = response.data['outcome'];
  const outcome = raw === Outcome.committed || raw === Outcome.rejected || raw === Outcome.unknown ? raw : Outcome.unknown;
  const data: Record<string, unknown> = {
    ...classify({ kind: 'result_store_failed', outcome, response_complete_durable: true }),
    diagnostic: `result store check failed: ${reason}`,
  };
  for (const key of ['response_status', 'response_digest', 'result_object', 'framing'] as const) {
    if (response.data[key] !== undefined) data[key] = response.data[key];
  }
  return draftFor(response, EventType.REMOTE_RESPONSE_COMPLETE, at, data);
}

export function asEvent(draft: EventDraft, invocationId: string, n: number): JournalEvent {
  return { ...draft, invocation_id: invocationId, n };
}
