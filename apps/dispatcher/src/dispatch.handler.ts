import { retryNotBefore, type StoredEvent } from '@postern/contract';
import { Journal, type HandleVerdict } from '@postern/journal';
import { AttemptLease } from './attempt-lease.js';
import { AttemptRun } from './attempt-run.js';
import { scheduleAutoRetry } from './auto-retry-schedule.js';
import type { DispatcherDeps } from './dispatcher-deps.js';
import { writerName } from './dispatcher-event.js';
import { planInvocation } from './invocation-plan.js';
import type { Recovery } from './recovery.js';

const RACED_DELAY_MS = 200;
const MAX_WAIT_MS = 60_000;
/** More than any sane `dispatch.budget`; the budget stops a chain first. */
const MAX_FOLLOW_UPS = 20;

/**
 * CREDENTIAL_AUTHORIZED (and RETRY_SCHEDULED) from the shared durable
 * consumer: decide from the journal, take the lease, run the attempt, and
 * schedule the automatic retry the journal calls for, if any. The
 * event only says "look at this invocation"; the journal says what to do.
 */
export class DispatchHandler {
  constructor(
    private readonly deps: DispatcherDeps,
    private readonly recovery: Recovery,
  ) {}

  handle(event: StoredEvent): Promise<HandleVerdict> {
    return this.dispatch(event.invocation_id);
  }

  /**
   * Runs what the journal says is due, then looks again: an attempt that
   * committed a redirect to follow leaves the next attempt due at once. The
   * message is acknowledged only after the chain, so a crash in between
   * brings it back and the journal picks up where it stopped.
   */
  async dispatch(invocationId: string): Promise<HandleVerdict> {
    if (this.deps.inFlight.has(invocationId)) return 'ack';
    let verdict = await this.dispatchOnce(invocationId);
    // Bounded by the budget: every round is one more dispatch.
    for (let round = 0; round < MAX_FOLLOW_UPS && verdict === 'ack'; round++) {
      if (!(await this.redirectDue(invocationId))) break;
      verdict = await this.dispatchOnce(invocationId);
    }
    // `dispatch.auto_retry`: the attempt that just resolved may call for
    // another; RETRY_SCHEDULED brings this handler back for it.
    if (verdict === 'ack') await scheduleAutoRetry(this.deps, invocationId);
    return verdict;
  }

  private async redirectDue(invocationId: string): Promise<boolean> {
    const reader = new Journal(this.deps.res, this.deps.prefix, writerName(this.deps.instanceId, 0));
    const plan = planInvocation(await reader.read(invocationId));
    return plan.kind === 'dispatch' && plan.redirect !== null;
  }

  private async dispatchOnce(invocationId: string): Promise<HandleVerdict> {
    if (this.deps.inFlight.has(invocationId)) return 'ack';
    const reader = new Journal(this.deps.res, this.deps.prefix, writerName(this.deps.instanceId, 0));
    const history = await reader.read(invocationId);
    const plan = planInvocation(history);
    switch (plan.kind) {
      case 'skip':
        return 'ack';
      case 'recover':
        return this.recovery.recoverInvocation(invocationId);
      case 'dispatch': {
        // A scheduled retry waits for its time, whichever message brought it here.
        const notBefore = retryNotBefore(history);
        const wait = notBefore === null ? 0 : notBefore - this.deps.now();
        if (wait > 0) return { nak_delay_ms: Math.min(MAX_WAIT_MS, wait) };
        const taken = await AttemptLease.acquire(
          this.deps.leases,
          { invocation_id: invocationId, holder: this.deps.instanceId, attempt: plan.attempt, lease_ms: plan.binding.lease_ms },
          this.deps.now,
        );
        if (taken.kind === 'busy') return { nak_delay_ms: Math.min(MAX_WAIT_MS, taken.wait_ms + 100) };
        if (taken.kind === 'raced') return { nak_delay_ms: RACED_DELAY_MS };
        this.deps.inFlight.add(invocationId);
        try {
          return await new AttemptRun(this.deps, plan, history, taken.lease).run();
        } finally {
          this.deps.inFlight.delete(invocationId);
        }
      }
      default: {
        const never: never = plan;
        throw new Error(`unhandled plan ${String((never as { kind?: unknown }).kind)}`);
      }
    }
  }
}
