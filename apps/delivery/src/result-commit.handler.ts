import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { evolve, EventType, type StoredEvent } from '@postern/contract';
import {
  durableConsumer,
  type DurableConsumer,
  type HandleVerdict,
  type Journal,
  type JournalResources,
} from '@postern/journal';
import { errorName, type ServiceLog } from '@postern/service';
import {
  DELIVERY_CLOCK,
  DELIVERY_DURABLE,
  DELIVERY_JOURNAL,
  DELIVERY_LOG,
  DELIVERY_RESOURCES,
  type Clock,
} from './delivery.constants.js';
import { asEvent, checkStoredResult, commitDraft, storeFailureDraft } from './result-commit.js';
import { awaitsVerification, foldHistory, settlementOf } from './result-history.js';

/** Appends that lost to another writer are re-decided from a fresh read, this many times per delivery. */
const MAX_ROUNDS = 5;

/**
 * Reacts to REMOTE_RESPONSE_COMPLETE: re-reads the stored result, checks it
 * against the digest the journal recorded, and appends RESULT_COMMITTED, or
 * the result-store failure when the store does not hold what the journal
 * says. Safe on redelivery and across replicas: a response already settled
 * is skipped, and appends are conditional on the history that was checked.
 */
@Injectable()
export class ResultCommitHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private consumer: DurableConsumer | null = null;

  constructor(
    @Inject(DELIVERY_RESOURCES) private readonly res: JournalResources,
    @Inject(DELIVERY_JOURNAL) private readonly journal: Journal,
    @Inject(DELIVERY_LOG) private readonly log: ServiceLog,
    @Inject(DELIVERY_CLOCK) private readonly now: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = await durableConsumer(this.res, {
      durable: DELIVERY_DURABLE,
      eventTypes: [EventType.REMOTE_RESPONSE_COMPLETE],
      handle: (ev) => this.handle(ev),
      onError: (err, ev) =>
        this.log.error('result.check_failed', { invocation_id: ev.invocation_id, seq: ev.seq, error: errorName(err) }),
      onInvalid: (err) => this.log.error('journal.invalid_event', { error: errorName(err) }),
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = null;
  }

  async handle(ev: StoredEvent): Promise<HandleVerdict> {
    if (!awaitsVerification(ev)) return 'ack';
    const id = ev.invocation_id;
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const history = await this.journal.read(id);
      const response = history.find((e) => e.seq === ev.seq);
      const folded = foldHistory(id, history);
      if (response === undefined || folded.refused.has(ev.seq)) {
        // The fold refused it (the projector reports why): nothing it says can be vouched for.
        this.log.error('result.response_refused', { invocation_id: id, seq: ev.seq });
        return 'ack';
      }
      if (settlementOf(history, response) !== null) return 'ack';

      const check = await checkStoredResult(this.res, response);
      const at = new Date(this.now()).toISOString();
      const draft = check.ok ? commitDraft(response, check, at) : storeFailureDraft(response, check.reason, at);
      const lastSeq = history.length > 0 ? history[history.length - 1]!.seq : 0;
      const event = asEvent(draft, id, history.length + 1);
      if (!evolve(folded.state, { ...event, seq: lastSeq + 1 }).ok) {
        this.log.error('result.settle_refused', { invocation_id: id, attempt: response.attempt, type: draft.type });
        return 'ack';
      }
      const appended = await this.journal.append(event, lastSeq);
      if (appended.status === 'lost') continue;
      if (check.ok) {
        this.log.info('result.committed', { invocation_id: id, attempt: response.attempt, seq: appended.seq });
      } else {
        this.log.error('result.store_failed', { invocation_id: id, attempt: response.attempt, reason: check.reason });
      }
      return 'ack';
    }
    return 'nak';
  }
}
