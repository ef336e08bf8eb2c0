import { Inject, Injectable } from '@nestjs/common';
import {
  Code,
  EventType,
  Phase,
  requestError,
  Status,
  type ErrorReply,
  type RecordView,
  type StoredEvent,
} from '@postern/contract';
import type { EventDraft, Journal } from '@postern/journal';
import { errorName, type ServiceLog } from '@postern/service';
import { IntakeBusyError } from './errors.js';
import { intakeDraft } from './intake-event.js';
import { INTAKE_JOURNAL, INTAKE_LOG } from './intake.constants.js';
import { readInvocationRequest } from './invocation-request.js';
import { RecordReader, viewOf } from './record-reader.js';

const MAX_ROUNDS = 4;

// Past these the action has left credential injection: it is setting up its connection.
const CONNECTION_SETUP_EVENTS: ReadonlySet<string> = new Set([
  EventType.CREDENTIAL_AUTHORIZED,
  EventType.LEASE_ACQUIRED,
  EventType.CONNECTION_FAILED,
]);

/** The phase an undispatched action had reached, which is where a cancel stops it. */
export function phaseReached(history: readonly StoredEvent[]): Phase {
  if (history.some((e) => CONNECTION_SETUP_EVENTS.has(e.type))) return Phase.connection_setup;
  if (history.some((e) => e.type === EventType.PREFLIGHT_VALIDATED)) return Phase.credential_injection;
  return Phase.validation;
}

/**
 * The CALLER_CANCELLED to append, or null when a cancel changes nothing: the
 * invocation is unknown, already resolved, or already cancelled. After
 * dispatch the event carries the dispatching attempt and its generation; the
 * remote result is still read and classified when it arrives.
 */
export function cancelDraft(history: readonly StoredEvent[], nowMs: number): EventDraft | null {
  const first = history[0];
  if (first === undefined) return null;
  if (history.some((e) => e.type === EventType.CALLER_CANCELLED)) return null;
  if (viewOf(first.invocation_id, history, nowMs).status === Status.resolved) return null;
  const at = new Date(nowMs).toISOString();
  const dispatch = [...history].reverse().find((e) => e.type === EventType.DISPATCH_STARTED);
  if (dispatch === undefined) {
    return intakeDraft(EventType.CALLER_CANCELLED, at, { phase: phaseReached(history), dispatched: false });
  }
  return {
    ...intakeDraft(EventType.CALLER_CANCELLED, at, { phase: Phase.remote_execution, dispatched: true }),
    attempt: dispatch.attempt,
    generation: dispatch.generation,
  };
}

/**
 * `P.v1.actions.cancel`. The append is conditional on the history it was
 * decided from, so a race with the dispatcher is settled by the journal: if
 * DISPATCH_STARTED lands first, the cancel is decided again on the new history.
 */
@Injectable()
export class CancelAction {
  constructor(
    @Inject(INTAKE_JOURNAL) private readonly journal: Journal,
    @Inject(INTAKE_LOG) private readonly log: ServiceLog,
    private readonly reader: RecordReader,
  ) {}

  async run(input: unknown): Promise<RecordView | ErrorReply> {
    const request = readInvocationRequest(input);
    if (request.kind === 'bad_request') {
      this.log.info('cancel.refused', { code: Code.BAD_REQUEST });
      return requestError(Code.BAD_REQUEST, 'The request must be a JSON object with a string invocation_id.', request.field);
    }
    try {
      return await this.cancel(request.invocationId);
    } catch (err) {
      this.log.error('cancel.failed', { invocation_id: request.invocationId, error: errorName(err) });
      throw err;
    }
  }

  private async cancel(invocationId: string): Promise<RecordView | ErrorReply> {
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const result = await this.journal.appendNext(invocationId, (history) => cancelDraft(history, Date.now()));
      if (result.status === 'lost') continue;
      if (result.history.length === 0) return requestError(Code.NOT_FOUND);
      if (result.status === 'appended') {
        this.log.info('cancel.appended', { invocation_id: invocationId, dispatched: result.event.data['dispatched'] === true });
      }
      return viewOf(invocationId, result.history, Date.now());
    }
    const view = await this.reader.view(invocationId);
    if (view === null) throw new IntakeBusyError(`cancel of ${invocationId} kept losing to other writers`);
    return view;
  }
}
