import { Phase, Stage, Status, type ErrorView, type RecordView } from '@postern/contract';
import { isRecordView } from './exit-code.js';

const SEP = ' · ';

/** Where a record without error stopped, from the stage its evidence reached. */
const PHASE_OF_STAGE: Record<Stage, Phase> = {
  [Stage.validation]: Phase.validation,
  [Stage.credential]: Phase.credential_injection,
  [Stage.dns]: Phase.connection_setup,
  [Stage.tcp_connect]: Phase.connection_setup,
  [Stage.proxy_connect]: Phase.connection_setup,
  [Stage.tls_handshake]: Phase.connection_setup,
  [Stage.ssh_handshake]: Phase.connection_setup,
  [Stage.ssh_host_key]: Phase.connection_setup,
  [Stage.ssh_auth]: Phase.connection_setup,
  [Stage.ssh_channel_open]: Phase.remote_execution,
  [Stage.request_write]: Phase.remote_execution,
  [Stage.response_headers]: Phase.remote_execution,
  [Stage.response_body]: Phase.remote_execution,
  [Stage.exec_request]: Phase.remote_execution,
  [Stage.exec_running]: Phase.remote_execution,
  [Stage.result_store]: Phase.result_delivery,
  [Stage.result_delivery]: Phase.result_delivery,
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeError(error: ErrorView): string {
  let text = [error.phase, error.code, `retry ${error.retry}`].join(SEP);
  if (error.field !== undefined) text += ` (field ${error.field})`;
  if (error.action_required !== undefined) text += ` (action required: ${error.action_required})`;
  if (error.retry_after_ms !== undefined) text += ` (retry after ${error.retry_after_ms} ms)`;
  return text;
}

/**
 * The one line a person reads first: `committed · remote_execution · (no error)`
 * or `not_attempted · validation · FORBIDDEN_HEADER · retry after_correction
 * (field http.headers.authorization)`. Null for replies that are neither a
 * RecordView nor an error.
 */
export function summaryLine(reply: unknown): string | null {
  if (isRecordView(reply)) {
    const record = reply as RecordView;
    const parts: string[] = [];
    if (record.status === Status.pending) parts.push(Status.pending);
    parts.push(record.outcome);
    if (record.error !== null && record.error !== undefined) parts.push(describeError(record.error));
    else {
      const stage = isObject(record.evidence) ? record.evidence.stage : undefined;
      const phase = stage !== undefined ? PHASE_OF_STAGE[stage] : undefined;
      if (phase !== undefined) parts.push(phase);
      parts.push('(no error)');
    }
    if (record.cancelled === true) parts.push('cancelled');
    return parts.join(SEP);
  }
  if (isObject(reply) && isObject(reply.error)) {
    const error = reply.error as unknown as ErrorView;
    return [error.outcome, describeError(error)].join(SEP);
  }
  return null;
}
