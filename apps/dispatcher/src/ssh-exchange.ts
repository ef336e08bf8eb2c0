import { classify, EventType, EvidenceSource, Outcome, type Classification, type TargetPolicy } from '@postern/contract';
import { putSshResult, type HandleVerdict } from '@postern/journal';
import { execCommand, type SshConnection, type SshExecReport } from '@postern/transport-ssh';
import { redact } from '@postern/transport-http';
import { classificationData } from './attempt-evidence.js';
import type { ExchangeContext } from './exchange-context.js';
import { errorName } from './dispatcher-log.js';
import { FaultPoint } from './fault-point.js';
import { sshCompleteData, sshDiagnostic, sshFlags, sshRefusedData, sshUnknownData } from './ssh-evidence.js';
import { PostDispatchWriter } from './post-dispatch-writer.js';

const MAX_TIMER_MS = 2_147_483_647;

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The broker's own limit on one exec, from the call until the channel
 * closes: the target's `response_headers` and `body` timeouts together (an
 * exec has no header phase; the first covers the wait for the command to
 * start talking, the second its run).
 */
export function execTimeoutMs(entry: TargetPolicy): number {
  return entry.timeouts_ms.response_headers + entry.timeouts_ms.body;
}

/**
 * The part of an SSH attempt after DISPATCH_STARTED: the channel open and
 * exec go out in one step, output is kept up to the policy's `output_bytes`
 * per stream with the secret redacted, and the attempt closes with one
 * verdict: the exit (result stored first), the server's refusal, or unknown.
 */
export class SshExchange {
  private readonly writer: PostDispatchWriter;

  constructor(private readonly ctx: ExchangeContext) {
    this.writer = new PostDispatchWriter(ctx);
  }

  async run(conn: SshConnection, entry: TargetPolicy, command: string, stdin: Uint8Array | null, deadline: number | null): Promise<HandleVerdict> {
    const stdout: Uint8Array[] = [];
    const stderr: Uint8Array[] = [];
    const untilDeadline = deadline === null ? null : Math.max(0, deadline - this.ctx.deps.now());
    const deadlineTimer =
      untilDeadline === null || untilDeadline > MAX_TIMER_MS
        ? null
        : setTimeout(() => this.writer.enqueue(() => this.writer.cancelAfterDispatch()), untilDeadline);
    let report: SshExecReport;
    try {
      report = await execCommand(conn, stdin === null ? { command } : { command, stdin }, {
        outputBytes: entry.limits.output_bytes,
        timeoutMs: execTimeoutMs(entry),
        onStdout: (chunk) => {
          stdout.push(chunk);
        },
        onStderr: (chunk) => {
          stderr.push(chunk);
        },
      });
    } finally {
      if (deadlineTimer !== null) clearTimeout(deadlineTimer);
      // One connection per attempt: what the server saw of it ends here.
      await conn.close().catch(() => undefined);
    }
    await this.writer.flushed();

    const classification = classify({ kind: 'ssh', ...report });
    await this.ctx.fault(FaultPoint.before_response_complete);
    if (this.writer.silenced) {
      this.ctx.deps.log.error('attempt.abandoned', { invocation_id: this.ctx.invocationId, attempt: this.ctx.plan.attempt });
      return 'ack';
    }
    const exited = report.exit_status !== null || report.exit_signal !== null;
    if (exited) await this.commitExit(report, classification, stdout, stderr);
    else if (classification.outcome === Outcome.rejected) {
      await this.writer.append(EventType.REMOTE_RESPONSE_COMPLETE, sshRefusedData(classification, report), EvidenceSource.remote_response);
    } else await this.writer.append(EventType.REMOTE_OUTCOME_UNKNOWN, sshUnknownData(classification, report));
    this.ctx.deps.log.info('attempt.resolved', {
      invocation_id: this.ctx.invocationId,
      attempt: this.ctx.plan.attempt,
      outcome: classification.outcome,
      code: classification.code,
      exit_status: report.exit_status,
      ended_by: report.ended_by,
    });
    if (!this.writer.silenced) await this.ctx.lease.release();
    return 'ack';
  }

  /** Stores the output first, then says so in the journal; a store that fails is said instead. */
  private async commitExit(report: SshExecReport, classification: Classification, stdout: Uint8Array[], stderr: Uint8Array[]): Promise<void> {
    const flags = sshFlags(report);
    const stdoutComplete = flags['stdout_complete'] === true;
    const stderrComplete = flags['stderr_complete'] === true;
    const toStore = {
      invocation_id: this.ctx.invocationId,
      attempt: this.ctx.plan.attempt,
      exit_status: report.exit_status,
      exit_signal: report.exit_signal,
      complete: stdoutComplete && stderrComplete,
      stdout: { bytes: redact(concat(stdout), this.ctx.forms), complete: stdoutComplete },
      stderr: { bytes: redact(concat(stderr), this.ctx.forms), complete: stderrComplete },
    };
    let stored;
    try {
      stored = await this.writer.store(() => putSshResult(this.ctx.deps.res, toStore));
    } catch (err) {
      this.ctx.deps.log.error('result.store_failed', { invocation_id: this.ctx.invocationId, error: errorName(err) });
      const failed = classify({ kind: 'result_store_failed', outcome: classification.outcome, response_complete_durable: false });
      await this.writer.append(EventType.REMOTE_OUTCOME_UNKNOWN, {
        ...classificationData(failed),
        ...flags,
        diagnostic: `result_store:${errorName(err)}:${sshDiagnostic(report)}`,
      });
      return;
    }
    await this.writer.append(EventType.REMOTE_RESPONSE_COMPLETE, sshCompleteData(classification, report, stored), EvidenceSource.remote_response);
  }
}
