import { autoRetryOf, EventType, type ScheduledRetry } from '@postern/contract';
import { Journal } from '@postern/journal';
import type { DispatcherDeps } from './dispatcher-deps.js';
import { dispatcherDraft, writerName } from './dispatcher-event.js';
import { foldHistory } from './invocation-plan.js';

const MAX_ROUNDS = 3;

/**
 * Appends RETRY_SCHEDULED when the journal says an automatic retry is due.
 * The draft is decided again from the history it will follow, so two workers
 * (or a worker and recovery) never schedule the same retry twice: once one
 * lands, the record is pending and the other finds nothing due. The durable
 * consumer then brings the event back and the next attempt runs from it.
 */
export async function scheduleAutoRetry(deps: DispatcherDeps, invocationId: string): Promise<ScheduledRetry | null> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const decided: { due: ScheduledRetry | null } = { due: null };
    const journal = new Journal(deps.res, deps.prefix, writerName(deps.instanceId, 0));
    const result = await journal.appendNext(invocationId, (history) => {
      const state = foldHistory(history);
      const due = state === null ? null : autoRetryOf(state, deps.now());
      decided.due = due;
      if (due === null) return null;
      return dispatcherDraft(EventType.RETRY_SCHEDULED, due.attempt, due.generation, deps.now(), { ...due.data });
    });
    if (result.status === 'skipped') return null;
    const scheduled = decided.due;
    if (result.status === 'appended' && scheduled !== null) {
      deps.log.info('attempt.retry_scheduled', {
        invocation_id: invocationId,
        attempt: scheduled.attempt,
        reason: scheduled.data.reason,
        not_before: scheduled.data.not_before,
      });
      return scheduled;
    }
  }
  return null;
}
