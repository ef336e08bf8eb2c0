import { classify, EventType, leaseIsLive } from '@postern/contract';
import { Journal, type HandleVerdict } from '@postern/journal';
import { AttemptLease } from './attempt-lease.js';
import { scheduleAutoRetry } from './auto-retry-schedule.js';
import { classificationData } from './attempt-evidence.js';
import type { DispatcherDeps } from './dispatcher-deps.js';
import { dispatcherDraft, writerName } from './dispatcher-event.js';
import { errorName } from './dispatcher-log.js';
import { planInvocation } from './invocation-plan.js';

const RACED_DELAY_MS = 200;
const MAX_WAIT_MS = 60_000;

/**
 * Attempts that crossed DISPATCH_STARTED and were never resolved, because
 * their worker died. Such an attempt is never sent again: once its lease has
 * expired, a new generation takes the lease and records RECOVERY_OBSERVED,
 * outcome unknown (CONTRACT.md section 6).
 */
export class Recovery {
  private timer: NodeJS.Timeout | null = null;
  private scanning: Promise<void> | null = null;

  constructor(private readonly deps: DispatcherDeps) {}

  /** Recovers one invocation if it is in that state: `ack` when done or nothing to do. */
  async recoverInvocation(invocationId: string): Promise<HandleVerdict> {
    const reader = new Journal(this.deps.res, this.deps.prefix, writerName(this.deps.instanceId, 0));
    const history = await reader.read(invocationId);
    const plan = planInvocation(history);
    if (plan.kind !== 'recover' || this.deps.inFlight.has(invocationId)) return 'ack';
    const leaseMs = plan.state.binding?.lease_ms ?? this.deps.policy.current().dispatch.lease_ms;
    const taken = await AttemptLease.acquire(
      this.deps.leases,
      { invocation_id: invocationId, holder: this.deps.instanceId, attempt: plan.attempt, lease_ms: leaseMs },
      this.deps.now,
    );
    if (taken.kind === 'busy') return { nak_delay_ms: Math.min(MAX_WAIT_MS, taken.wait_ms + 100) };
    if (taken.kind === 'raced') return { nak_delay_ms: RACED_DELAY_MS };
    const lease = taken.lease;
    const journal = new Journal(this.deps.res, this.deps.prefix, writerName(this.deps.instanceId, lease.generation));
    const data = classificationData(classify({ kind: 'recovery' }));
    const result = await journal.appendNext(invocationId, (h) => {
      const again = planInvocation(h);
      if (again.kind !== 'recover' || again.attempt !== plan.attempt) return null;
      return dispatcherDraft(EventType.RECOVERY_OBSERVED, plan.attempt, lease.generation, this.deps.now(), data);
    });
    await lease.release();
    if (result.status === 'appended') {
      this.deps.log.info('attempt.recovered', { invocation_id: invocationId, attempt: plan.attempt, generation: lease.generation });
      // A recovered attempt is unknown like any other: `auto_retry` may follow it.
      await scheduleAutoRetry(this.deps, invocationId);
    }
    return result.status === 'lost' ? { nak_delay_ms: RACED_DELAY_MS } : 'ack';
  }

  /** One pass over the lease bucket: every expired, unreleased lease is looked at. */
  async scan(): Promise<number> {
    let recovered = 0;
    const now = this.deps.now();
    for (const key of await this.deps.leases.keys()) {
      const entry = await this.deps.leases.read(key);
      if (entry === null || entry.lease.released === true || leaseIsLive(entry.lease, now)) continue;
      if (this.deps.inFlight.has(key)) continue;
      try {
        if ((await this.recoverInvocation(key)) === 'ack') recovered++;
      } catch (err) {
        this.deps.log.error('recovery.failed', { invocation_id: key, error: errorName(err) });
      }
    }
    return recovered;
  }

  /** Scans now and then every `intervalMs` (half a lease), one pass at a time. */
  start(intervalMs: number): void {
    if (this.timer !== null) return;
    const pass = (): void => {
      if (this.scanning !== null) return;
      this.scanning = this.scan()
        .then(() => undefined)
        .catch((err: unknown) => this.deps.log.error('recovery.scan_failed', { error: errorName(err) }))
        .finally(() => {
          this.scanning = null;
        });
    };
    pass();
    this.timer = setInterval(pass, Math.max(100, intervalMs));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.scanning;
  }
}
