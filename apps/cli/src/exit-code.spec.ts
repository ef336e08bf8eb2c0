import { describe, expect, it } from 'vitest';
import { Code, Outcome, Phase, Retry, Status } from '@postern/contract';
import { BadReplyError, BrokerUnreachableError, InvalidJsonError, NotAvailableError, UnreachableReason, UsageError } from './errors.js';
import { ExitCode, exitCodeForError, exitCodeForReply, isRecordView } from './exit-code.js';

function record(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { invocation_id: 'act_1', client_request_id: 'r1', status: Status.resolved, outcome: Outcome.committed, error: null, ...over };
}

const validationError = {
  code: Code.FORBIDDEN_HEADER,
  phase: Phase.validation,
  outcome: Outcome.not_attempted,
  retry: Retry.after_correction,
  message: 'The request sets a header that only the broker may set.',
  field: 'http.headers.authorization',
};

describe('exitCodeForReply', () => {
  it('is 0 only for a resolved, committed record without error', () => {
    expect(exitCodeForReply(record())).toBe(ExitCode.ok);
  });

  it('is 1 for a validation record, an unknown outcome, or a committed record with an error', () => {
    expect(exitCodeForReply(record({ outcome: Outcome.not_attempted, error: validationError }))).toBe(ExitCode.broker_error);
    expect(exitCodeForReply(record({ outcome: Outcome.unknown, error: { ...validationError, code: Code.REMOTE_OUTCOME_UNKNOWN } }))).toBe(
      ExitCode.broker_error,
    );
    expect(exitCodeForReply(record({ error: { ...validationError, code: Code.REMOTE_ERROR_RESPONSE } }))).toBe(ExitCode.broker_error);
  });

  it('is 1 for a record still pending, even if committed so far', () => {
    expect(exitCodeForReply(record({ status: Status.pending }))).toBe(ExitCode.broker_error);
    expect(exitCodeForReply(record({ status: Status.pending, outcome: Outcome.not_attempted }))).toBe(ExitCode.broker_error);
  });

  it('is 1 for an error reply that is not about an invocation', () => {
    expect(exitCodeForReply({ error: { ...validationError, code: Code.NOT_FOUND, retry: Retry.never } })).toBe(ExitCode.broker_error);
  });

  it('is 0 for other replies without error, and 1 for a reply that is not an object', () => {
    expect(exitCodeForReply({ state: 'ready', public_key: 'AAAA' })).toBe(ExitCode.ok);
    expect(exitCodeForReply({ events: 3, invocations: 1, anomalies: 0, last_seq: 3 })).toBe(ExitCode.ok);
    expect(exitCodeForReply(null)).toBe(ExitCode.broker_error);
    expect(exitCodeForReply([1])).toBe(ExitCode.broker_error);
  });

  it('tells a RecordView from other replies', () => {
    expect(isRecordView(record())).toBe(true);
    expect(isRecordView({ error: validationError })).toBe(false);
    expect(isRecordView({ invocation_id: 'act_1' })).toBe(false);
  });
});

describe('exitCodeForError', () => {
  it('maps usage, bad input, unavailable features and an unreachable broker to 2', () => {
    expect(exitCodeForError(new UsageError('x'))).toBe(2);
    expect(exitCodeForError(new InvalidJsonError('x', 1, 1, 2))).toBe(2);
    expect(exitCodeForError(new NotAvailableError('x'))).toBe(2);
    expect(exitCodeForError(new BrokerUnreachableError('x', UnreachableReason.no_responders, 's'))).toBe(2);
  });

  it('maps a malformed broker reply to 1', () => {
    expect(exitCodeForError(new BadReplyError('x'))).toBe(1);
  });
});
