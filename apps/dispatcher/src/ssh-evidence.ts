import type { Classification } from '@postern/contract';
import type { SshExecReport } from '@postern/transport-ssh';
import { classificationData } from './attempt-evidence.js';

/**
 * The SSH evidence flags (CONTRACT.md section 4) every closing event of an
 * SSH attempt carries. The request flags say what went out: the channel open
 * with the exec request, and whether the server accepted the exec.
 */
export function sshFlags(report: SshExecReport): Record<string, unknown> {
  const exited = report.exit_status !== null || report.exit_signal !== null;
  return {
    request_headers_sent: report.channel_open_sent,
    request_complete: report.exec_reply === 'success',
    exec_accepted: report.exec_reply === 'success',
    exit_status: report.exit_status,
    exit_signal: report.exit_signal,
    stdout_complete: exited && !report.stdout_over_limit && !report.output_broken && !report.sink_failed,
    stderr_complete: exited && !report.stderr_over_limit && !report.output_broken && !report.sink_failed,
    stdout_bytes: report.stdout_bytes,
    stderr_bytes: report.stderr_bytes,
  };
}

export function sshDiagnostic(report: SshExecReport): string {
  return report.diagnostic !== undefined ? `${report.ended_by}:${report.diagnostic}` : report.ended_by;
}

/** REMOTE_RESPONSE_COMPLETE of an exec that exited, with where its output is stored. */
export function sshCompleteData(
  c: Classification,
  report: SshExecReport,
  stored: { result_object: string; result_digest: string },
): Record<string, unknown> {
  return {
    ...classificationData(c),
    ...sshFlags(report),
    response_complete: true,
    response_digest: stored.result_digest,
    result_object: stored.result_object,
  };
}

/** REMOTE_RESPONSE_COMPLETE of a refused channel or exec: the server's no, with nothing to store. */
export function sshRefusedData(c: Classification, report: SshExecReport): Record<string, unknown> {
  return { ...classificationData(c), ...sshFlags(report), response_complete: true, diagnostic: sshDiagnostic(report) };
}

/** REMOTE_OUTCOME_UNKNOWN of an exec whose end was not seen. */
export function sshUnknownData(c: Classification, report: SshExecReport): Record<string, unknown> {
  const data: Record<string, unknown> = {
    ...classificationData(c),
    ...sshFlags(report),
    response_complete: false,
    diagnostic: sshDiagnostic(report),
  };
  if (report.broker_timeout) data['broker_timeout'] = 'exec';
  return data;
}
