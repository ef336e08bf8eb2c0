import { subjects } from '@postern/contract';
import { parseArgs, type Command, type ParsedArgs } from './args.js';
import { connectBroker, type Broker } from './broker.js';
import { runAck } from './commands/ack.js';
import { runCancel } from './commands/cancel.js';
import { runCredentialList, runCredentialPut, runCredentialRevoke } from './commands/credential.js';
import { runFetch } from './commands/fetch.js';
import { runGet } from './commands/get.js';
import { runReplay } from './commands/replay.js';
import { runSubmit } from './commands/submit.js';
import { runUp } from './commands/up.js';
import { runVault } from './commands/vault.js';
import { DEFAULT_NATS_URL, DEFAULT_PREFIX, type Context } from './context.js';
import { UsageError } from './errors.js';
import { ExitCode, exitCodeForError } from './exit-code.js';
import { Output, type Writable } from './output.js';
import { USAGE } from './usage.js';

/** The process around the CLI, passed in so that tests can run it in-process. */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  env: Readonly<Record<string, string | undefined>>;
  readStdin(): Promise<Buffer>;
  /** Reads one line from a terminal without echo; absent where there is no terminal. */
  promptHidden?(prompt: string): Promise<Buffer>;
  stdinIsTTY: boolean;
  stderrIsTTY: boolean;
}

function dispatch(ctx: Context, command: Exclude<Command, { name: 'help' } | { name: 'up' }>): Promise<number> {
  switch (command.name) {
    case 'submit':
      return runSubmit(ctx, command);
    case 'get':
      return runGet(ctx, command.id);
    case 'cancel':
      return runCancel(ctx, command.id);
    case 'fetch':
      return runFetch(ctx, command.id);
    case 'ack':
      return runAck(ctx, command.id);
    case 'replay':
      return runReplay(ctx);
    case 'vault':
      return runVault(ctx, command.action);
    case 'credential_put':
      return runCredentialPut(ctx, command.put);
    case 'credential_list':
      return runCredentialList(ctx);
    case 'credential_revoke':
      return runCredentialRevoke(ctx, command.id);
    default: {
      const never: never = command;
      throw new Error(`unhandled command ${JSON.stringify(never)}`);
    }
  }
}

/** Runs one command line to its exit status; never throws. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ParsedArgs;
  try {
    parsed = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`postern: ${err.message}\n\n${USAGE}`);
    return ExitCode.usage_or_unreachable;
  }
  const { options, command } = parsed;
  const out = new Output(io.stdout, io.stderr, options.json);
  if (command.name === 'help') {
    io.stderr.write(USAGE);
    return ExitCode.usage_or_unreachable;
  }

  const natsUrl = io.env.NATS_URL || DEFAULT_NATS_URL;
  let connected: Promise<Broker> | undefined;
  const ctx: Context = {
    options,
    natsUrl,
    subjects: subjects(io.env.POSTERN_PREFIX || DEFAULT_PREFIX),
    out,
    broker: () => (connected ??= connectBroker(natsUrl, options.timeoutMs)),
    readStdin: io.readStdin,
    promptHidden:
      io.promptHidden ??
      (() => Promise.reject(new UsageError('cannot read a secret from this terminal without echoing it: pipe it on stdin instead'))),
    stdinIsTTY: io.stdinIsTTY,
    stderrIsTTY: io.stderrIsTTY,
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
  try {
    if (command.name === 'up') return await runUp();
    return await dispatch(ctx, command);
  } catch (err) {
    out.error(err instanceof Error ? err.message : String(err));
    return exitCodeForError(err);
  } finally {
    if (connected !== undefined) {
      const broker = await connected.catch(() => undefined);
      await broker?.close().catch(() => undefined);
    }
  }
}
