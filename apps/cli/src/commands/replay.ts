import type { BrokerReply } from '../broker.js';
import type { Context } from '../context.js';
import { BrokerUnreachableError, UnreachableReason } from '../errors.js';
import { exitCodeForReply, type ExitCode } from '../exit-code.js';
import { parseProgress, ProgressReporter } from '../progress.js';

// The whole replay answers once; this is only a ceiling on a stuck projector.
// What normally ends the wait is `--timeout` of silence (no progress, no reply).
const MAX_REPLAY_MS = 24 * 60 * 60 * 1000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `postern replay`: asks the projector to rebuild the read model from the
 * journal, draws its progress on stderr, and prints the summary
 * `{"events","invocations","anomalies","last_seq"}`.
 */
export async function runReplay(ctx: Context): Promise<ExitCode> {
  const broker = await ctx.broker();
  const subject = ctx.subjects.projectorReplay;
  const progressSubject = broker.inbox();
  const reporter = new ProgressReporter({
    write: (text) => ctx.out.stderrWriter().write(text),
    isTTY: ctx.stderrIsTTY,
    now: () => ctx.now(),
  });

  let lastHeard = ctx.now();
  const sub = broker.subscribe(progressSubject, (message) => {
    lastHeard = ctx.now();
    const progress = parseProgress(message);
    if (progress !== null) reporter.update(progress);
  });

  let watchdog: ReturnType<typeof setInterval> | undefined;
  const silence = new Promise<never>((_, reject) => {
    watchdog = setInterval(() => {
      if (ctx.now() - lastHeard > ctx.options.timeoutMs) {
        reject(
          new BrokerUnreachableError(
            `the projector went silent for ${ctx.options.timeoutMs} ms during the replay (try a larger --timeout)`,
            UnreachableReason.timeout,
            subject,
          ),
        );
      }
    }, Math.min(250, ctx.options.timeoutMs));
  });

  let reply: BrokerReply;
  try {
    reply = await Promise.race([
      broker.request(subject, JSON.stringify({ progress_subject: progressSubject }), MAX_REPLAY_MS),
      silence,
    ]);
  } catch (err) {
    if (err instanceof BrokerUnreachableError && err.reason === UnreachableReason.no_responders) {
      throw new BrokerUnreachableError(
        'the projector is not running: start the broker with `npm start`',
        UnreachableReason.no_responders,
        subject,
        { cause: err },
      );
    }
    throw err;
  } finally {
    clearInterval(watchdog);
    sub.unsubscribe();
    reporter.finish();
  }

  ctx.out.reply(reply);
  const body = reply.body;
  if (!ctx.options.json && isObject(body) && typeof body.events === 'number') {
    ctx.out.note(
      `replayed ${body.events} events into ${String(body.invocations)} invocations, ` +
        `${String(body.anomalies)} anomalies, up to sequence ${String(body.last_seq)}`,
    );
  }
  return exitCodeForReply(body);
}
