import { EventType, Phase, type EvidenceSource } from '@postern/contract';
import { retryWhileUnavailable } from '@postern/journal';
import type { ExchangeContext } from './exchange-context.js';
import { errorName } from './dispatcher-log.js';
import { hasCancel } from './invocation-plan.js';

/**
 * How long an attempt that crossed DISPATCH_STARTED keeps trying to store and
 * journal what it observed while NATS is away. The observation exists only in
 * this process: given up, the attempt can only be recovered as unknown.
 */
export const POST_DISPATCH_PERSIST_MS = 120_000;

/**
 * How an exchange (HTTP or SSH) writes after DISPATCH_STARTED: in order, one
 * append after the other, and not at all once an append lost its place (the
 * journal moved on without this attempt: recovery owns it then). A lease that
 * could not be renewed does not silence it: after dispatch the lease no
 * longer guards a send, and each append is conditional on the journal's last
 * event, which is what decides whether this attempt's word still belongs
 * there. A NATS outage is waited out, within POST_DISPATCH_PERSIST_MS.
 */
export class PostDispatchWriter {
  private chain: Promise<void> = Promise.resolve();
  private failed = false;

  constructor(private readonly ctx: ExchangeContext) {}

  /** An append did not land: this worker writes nothing more for the attempt. */
  get silenced(): boolean {
    return this.failed;
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
    if (this.failed) return;
    const ok = await this.persist(`append ${type}`, () => this.ctx.journal.append(() => this.ctx.draft(type, data, source), true));
    if (!ok) this.failed = true;
  }

  /** Stores a result object (the same name each time, so a repeat replaces it) through a NATS outage. */
  store<T>(put: () => Promise<T>): Promise<T> {
    return this.persist('store result', put);
  }

  /** The caller's deadline passed while the remote works: say so at once, and keep reading. */
  async cancelAfterDispatch(): Promise<void> {
    if (this.failed) return;
    const ok = await this.persist('append CALLER_CANCELLED', () =>
      this.ctx.journal.append(
        (h) => (hasCancel(h) ? null : this.ctx.draft(EventType.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true })),
        true,
      ),
    );
    if (ok) this.ctx.deps.log.info('attempt.deadline_passed', { invocation_id: this.ctx.invocationId, attempt: this.ctx.plan.attempt });
  }

  private persist<T>(what: string, op: () => Promise<T>): Promise<T> {
    return retryWhileUnavailable(op, {
      windowMs: POST_DISPATCH_PERSIST_MS,
      onRetry: (err, waitMs) =>
        this.ctx.deps.log.error('attempt.nats_unavailable', {
          invocation_id: this.ctx.invocationId,
          attempt: this.ctx.plan.attempt,
          step: what,
          error: errorName(err),
          retry_in_ms: waitMs,
        }),
    });
  }
}
