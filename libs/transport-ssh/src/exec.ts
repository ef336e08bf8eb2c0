import type { ClientChannel } from 'ssh2';
import type { SshConnection } from './ssh-connection.js';
import type { SshExecEnd, SshExecOptions, SshExecReport, SshExecRequest } from './types.js';

type StreamName = 'stdout' | 'stderr';

/** ssh2 keeps the channel's remote-side state here: 'open', 'eof' or 'closed'. */
function remoteState(channel: ClientChannel | null): string | undefined {
  const incoming = (channel as unknown as { incoming?: { state?: unknown } } | null)?.incoming;
  return typeof incoming?.state === 'string' ? incoming.state : undefined;
}

function emptyReport(connectionId: string): SshExecReport {
  return {
    connection_id: connectionId,
    channel_open_sent: false,
    channel_open_refused: false,
    exec_reply: null,
    connection_lost: false,
    channel_closed: false,
    exit_status: null,
    exit_signal: null,
    eof_received: false,
    output_over_limit: false,
    output_broken: false,
    broker_timeout: false,
    aborted: false,
    sink_failed: false,
    stdout_bytes: 0,
    stderr_bytes: 0,
    stdout_passed: 0,
    stderr_passed: 0,
    stdout_over_limit: false,
    stderr_over_limit: false,
    ended_by: 'closed',
    diagnostic: undefined,
  };
}

/**
 * Runs one command on its own session channel and reports what happened,
 * fact by fact. The caller appends DISPATCH_STARTED before calling this:
 * ssh2 opens the channel and sends the exec request (want-reply) in one step.
 *
 * Output within `outputBytes` per stream goes to the sinks, in order, one
 * call at a time (the channel is paused while a sink is busy); the rest is
 * counted and dropped while reading on until the channel closes. Never
 * rejects for anything the server or the network did.
 */
export function execCommand(conn: SshConnection, request: SshExecRequest, opts: SshExecOptions): Promise<SshExecReport> {
  const report = emptyReport(conn.id);
  if (opts.signal?.aborted === true) {
    report.aborted = true;
    report.ended_by = 'aborted';
    return Promise.resolve(report);
  }
  if (!conn.alive) {
    report.connection_lost = true;
    report.ended_by = 'connection_lost';
    report.diagnostic = 'connection_not_alive';
    return Promise.resolve(report);
  }
  const client = conn.client;

  return new Promise<SshExecReport>((resolve) => {
    let finished = false;
    let channel: ClientChannel | null = null;
    let exited = false;
    let connectionGone = false;
    /** The channel's remote state when the connection went: what really arrived before it. */
    let stateAtLoss: string | undefined;
    let endSeen = false;
    let closeSeen = false;
    let stderrDone = false;
    let pendingSinks = 0;
    let sinkChain: Promise<void> = Promise.resolve();

    const finish = (endedBy: SshExecEnd) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      client.off('close', onConnectionClose);
      report.ended_by = endedBy;
      report.output_over_limit = report.stdout_over_limit || report.stderr_over_limit;
      resolve(report);
    };

    /** Settles the facts that depend on whether the connection outlived the channel. */
    const settleChannelFacts = () => {
      if (connectionGone) {
        report.channel_closed = closeSeen && stateAtLoss === 'closed';
        report.eof_received = stateAtLoss === 'eof' || stateAtLoss === 'closed';
        report.connection_lost = !exited && stateAtLoss !== 'closed';
        report.output_broken = exited && !report.eof_received;
      } else {
        report.channel_closed = closeSeen;
        report.eof_received = endSeen;
      }
    };

    const maybeFinish = () => {
      if (finished || !closeSeen || !stderrDone || pendingSinks > 0) return;
      settleChannelFacts();
      finish(report.connection_lost ? 'connection_lost' : 'closed');
    };

    const onConnectionClose = () => {
      connectionGone = true;
      stateAtLoss = remoteState(channel);
    };
    // Registered before exec: ssh2 emits the client's 'close' before it fails
    // outstanding channel requests, which is how a drop is told from a refusal.
    client.on('close', onConnectionClose);

    const stopHard = (endedBy: SshExecEnd) => {
      if (finished) return;
      settleChannelFacts();
      if (channel !== null) report.eof_received = report.eof_received || endSeen;
      finish(endedBy);
      // The remote command may still run; dropping the connection is the only
      // hang-up ssh2 guarantees to send.
      conn.destroy();
    };
    const timer = setTimeout(() => {
      report.broker_timeout = true;
      stopHard('timeout');
    }, opts.timeoutMs);
    const onAbort = () => {
      report.aborted = true;
      stopHard('aborted');
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const pass = (name: StreamName, chunk: Buffer) => {
      if (name === 'stdout') report.stdout_bytes += chunk.length;
      else report.stderr_bytes += chunk.length;
      const passed = name === 'stdout' ? report.stdout_passed : report.stderr_passed;
      const room = Math.max(0, opts.outputBytes - passed);
      if (chunk.length > room) {
        if (name === 'stdout') report.stdout_over_limit = true;
        else report.stderr_over_limit = true;
      }
      if (room === 0 || report.sink_failed) return;
      const part = new Uint8Array(chunk.subarray(0, Math.min(room, chunk.length)));
      if (name === 'stdout') report.stdout_passed += part.length;
      else report.stderr_passed += part.length;
      const sink = name === 'stdout' ? opts.onStdout : opts.onStderr;
      pendingSinks += 1;
      if (pendingSinks === 1 && channel !== null) {
        channel.pause();
        channel.stderr.pause();
      }
      sinkChain = sinkChain
        .then(async () => {
          if (!report.sink_failed && !finished) await sink(part);
        })
        .catch((err: unknown) => {
          report.sink_failed = true;
          const name = (err as { name?: unknown } | null)?.name;
          report.diagnostic ??= `sink_failed: ${typeof name === 'string' ? name : 'Error'}`;
        })
        .finally(() => {
          pendingSinks -= 1;
          if (pendingSinks === 0) {
            if (channel !== null && !finished) {
              channel.resume();
              channel.stderr.resume();
            }
            maybeFinish();
          }
        });
    };

    try {
      client.exec(request.command, { pty: false }, (err, stream) => {
        if (finished) {
          if (err === undefined) stream.destroy();
          return;
        }
        if (err !== undefined) {
          const reason = (err as { reason?: unknown }).reason;
          if (typeof reason === 'number') {
            // CHANNEL_OPEN_FAILURE: the server's explicit no to the session channel.
            report.channel_open_refused = true;
            report.diagnostic = `channel_open_failure: ${reason}`;
            finish('channel_open_refused');
            return;
          }
          report.diagnostic = err.message.slice(0, 200);
          if (connectionGone) {
            // ssh2 fails outstanding requests after the socket closed, with
            // the same "Unable to exec" a real failure reply gives.
            report.connection_lost = true;
            finish('connection_lost');
            return;
          }
          if (err.message === 'Unable to exec') {
            report.exec_reply = 'failure';
            finish('exec_refused');
            return;
          }
          // Not a reply the server gave: whether the command runs is not known.
          finish('connection_lost');
          return;
        }
        report.exec_reply = 'success';
        channel = stream;
        stream.on('exit', (code: number | null, signal?: string) => {
          exited = true;
          if (typeof code === 'number') report.exit_status = code;
          else report.exit_signal = typeof signal === 'string' ? signal.replace(/^SIG/, '') : 'UNKNOWN';
        });
        stream.on('data', (chunk: Buffer) => pass('stdout', chunk));
        stream.stderr.on('data', (chunk: Buffer) => pass('stderr', chunk));
        stream.on('end', () => {
          if (!connectionGone) endSeen = true;
        });
        stream.on('error', (e: Error) => {
          report.diagnostic ??= `channel_error: ${e.message.slice(0, 160)}`;
        });
        stream.stderr.on('end', () => {
          stderrDone = true;
          maybeFinish();
        });
        stream.on('close', () => {
          closeSeen = true;
          // ssh2 may end stderr without an 'end' event once the channel closed.
          if (stream.stderr.readableEnded || stream.stderr.destroyed) stderrDone = true;
          if (!stderrDone) stream.stderr.once('close', () => {
            stderrDone = true;
            maybeFinish();
          });
          maybeFinish();
        });
        if (request.stdin !== undefined && request.stdin.length > 0) stream.end(Buffer.from(request.stdin));
        else stream.end();
      });
      report.channel_open_sent = true;
    } catch (err) {
      // ssh2 throws "Not connected" before sending anything.
      report.connection_lost = true;
      report.diagnostic = (err as Error).message.slice(0, 200);
      finish('connection_lost');
    }
  });
}
