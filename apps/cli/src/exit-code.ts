import { Outcome, Status } from '@postern/contract';
import { BadReplyError, BrokerUnreachableError, UsageError } from './errors.js';

/** docs/contract.md section 9: the only three exit statuses the CLI has. */
export const ExitCode = {
  ok: 0,
  broker_error: 1,
  usage_or_unreachable: 2,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A RecordView is told apart from other replies by the fields only it has. */
export function isRecordView(reply: unknown): boolean {
  return isObject(reply) && typeof reply.invocation_id === 'string' && typeof reply.status === 'string';
}

/**
 * Exit status for a broker reply. A RecordView is 0 only when resolved,
 * committed and without error: a pending or unknown record is not an answer a
 * script may proceed on. Any other reply is 0 unless it carries an `error`.
 */
export function exitCodeForReply(reply: unknown): ExitCode {
  if (!isObject(reply)) return ExitCode.broker_error;
  if (reply.error !== undefined && reply.error !== null) return ExitCode.broker_error;
  if (!isRecordView(reply)) return ExitCode.ok;
  const committed = reply.status === Status.resolved && reply.outcome === Outcome.committed;
  return committed ? ExitCode.ok : ExitCode.broker_error;
}

export function exitCodeForError(err: unknown): ExitCode {
  if (err instanceof UsageError || err instanceof BrokerUnreachableError) return ExitCode.usage_or_unreachable;
  if (err instanceof BadReplyError) return ExitCode.broker_error;
  // An unexpected failure inside the CLI is not the broker's word on anything.
  return ExitCode.usage_or_unreachable;
}
