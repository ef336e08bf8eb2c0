import { EventType, Phase, type EvidenceSource } from '@postern/contract';
import type { ExchangeContext } from './attempt-exchange.js';
import { errorName } from './dispatcher-log.js';
import { hasCancel } from './invocation-plan.js';

/**
 * How an exchange (HTTP or SSH) writes after DISPATCH_STARTED: in order, one
 * append after the other, and not at all once an append failed or the lease
 * was lost: recovery owns the attempt then.
 */
export class PostDispatchWriter {
  private chain: Promise<void> = Promise.resolve();
  private failed = false;

  constructor(private readonly ctx: ExchangeContext) {}

  /** An append did not land: this worker writes nothing more for the attempt. */
  get silenced(): boolean {
    return this.failed;
  }

  /** Nothing more may be written: an append failed or the lease is gone. */
  get stopped(): boolean {
    return this.failed || this.ctx.lease.lost;
  }

  /** Queues a step behind the ones before it, so the journal keeps the wire's order. */
  enqueue(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch((err: unknown) => {
      this.failed = true;
      this.ctx.deps.log.error('attempt.append_failed', { invocation_id: this.ctx.invocationId, error: errorName(err) });
    });
  }

  /** Resolves once every queued step has run. */
  flushed(): Promise<void> {
    return this.chain;
  }

  async append(type: EventType, data: Record<string, unknown>, source?: EvidenceSource): Promise<void> {
    if (this.stopped) return;
    const ok = await this.ctx.journal.append(() => this.ctx.draft(type, data, source), true);
    if (!ok) this.failed = true;
  }

  /** The caller's deadline passed while the remote works: say so at once, and keep reading. */
  async cancelAfterDispatch(): Promise<void> {
    if (this.stopped) return;
    const ok = await this.ctx.journal.append(
      (h) => (hasCancel(h) ? null : this.ctx.draft(EventType.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true })),
      true,
    );
    if (ok) this.ctx.deps.log.info('attempt.deadline_passed', { invocation_id: this.ctx.invocationId, attempt: this.ctx.plan.attempt });
  }
}
