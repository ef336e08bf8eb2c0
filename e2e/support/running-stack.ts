import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NatsConnection } from '@nats-io/transport-node';
import type { EventType, StoredEvent } from '@postern/contract';
import { connectNats, ensureJournal, Journal, type JournalResources } from '@postern/journal';
import { freePort, startNatsServer, type NatsServerHandle } from '@postern/testkit';
// The launcher that `npm start` uses: the e2e suite runs exactly what users run.
import { startStack } from '../../infra/scripts/stack.mjs';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Stack {
  natsUrl: string;
  apiUrl: string;
  stop(): Promise<void>;
}

/** The whole broker as processes against a nats-server of its own, on 127.0.0.1 only. */
export class RunningStack {
  nc!: NatsConnection;
  res!: JournalResources;
  apiUrl = '';
  readonly lines: string[] = [];
  private stack: Stack | null = null;
  /** Services started later, each as a stack of its own on the same NATS and home. */
  private later: Stack[] = [];

  private constructor(
    readonly nats: NatsServerHandle,
    readonly home: string,
    readonly prefix: string,
    readonly env: Record<string, string>,
    readonly services: string[],
  ) {}

  static async start(
    options: {
      prefix?: string;
      dbUrl?: string;
      services?: string[];
      env?: Record<string, string>;
      /** Written to `$POSTERN_HOME/postern.yaml` before the services start. */
      policy?: string;
      /** More nats-server arguments, e.g. `-c <file>` for a limit the command line has no flag for. */
      natsArgs?: string[];
    } = {},
  ): Promise<RunningStack> {
    const nats = await startNatsServer(options.natsArgs === undefined ? {} : { args: options.natsArgs });
    const home = await mkdtemp(join(tmpdir(), 'postern-e2e-'));
    const prefix = options.prefix ?? 'e2e';
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      NATS_URL: nats.url,
      POSTERN_PREFIX: prefix,
      POSTERN_HOME: home,
      POSTERN_HTTP_PORT: String(await freePort()),
      ...(options.dbUrl ? { POSTERN_DB_URL: options.dbUrl } : {}),
      ...options.env,
    };
    if (options.policy !== undefined) await writeFile(join(home, 'postern.yaml'), options.policy);
    const stack = new RunningStack(nats, home, prefix, env, options.services ?? ['intake', 'projector']);
    await stack.boot();
    return stack;
  }

  private async boot(): Promise<void> {
    this.stack = (await startStack({
      home: this.home,
      env: this.env,
      log: (line: string) => this.lines.push(line),
      services: this.services,
      graceMs: 5_000,
    })) as Stack;
    this.apiUrl = this.stack.apiUrl;
    this.nc = await connectNats({ servers: this.nats.url, name: 'e2e' });
    this.res = await ensureJournal(this.nc, this.prefix);
    await this.waitUntilReady();
  }

  /**
   * Starts a service that was left out at start (a dispatcher coming up after
   * a deploy, say) with the same environment, NATS and home; `env` adds to
   * that environment for this service alone.
   */
  async startService(name: string, env: Record<string, string> = {}): Promise<void> {
    const stack = (await startStack({
      home: this.home,
      env: { ...this.env, ...env },
      log: (line: string) => this.lines.push(line),
      services: [name],
      graceMs: 5_000,
    })) as Stack;
    this.later.push(stack);
  }

  /** Stops the services (not NATS) and starts the ones named at start again on the same home. */
  async restartServices(): Promise<void> {
    await this.stopLater();
    await this.stack?.stop();
    await this.nc.close();
    await this.boot();
  }

  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (let i = 0; i < 300 && Date.now() < deadline; i++) {
      const api = await fetch(`${this.apiUrl}/healthz`).then((r) => r.ok, () => false);
      const intake = api && (await this.request('actions.get', { invocation_id: 'act_probe' }).then(() => true, () => false));
      if (intake) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the stack did not come up within 30 s:\n${this.lines.slice(-20).join('\n')}`);
  }

  async request(subject: string, body: unknown, timeoutMs = 5_000): Promise<any> {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    const msg = await this.nc.request(`${this.prefix}.v1.${subject}`, payload, { timeout: timeoutMs });
    return JSON.parse(new TextDecoder().decode(msg.data));
  }

  /**
   * Asks until a service answers (bounded), each try with a short timeout:
   * a request sent while a client reconnects after a NATS restart can go
   * unanswered.
   */
  async requestUntilAnswered(subject: string, body: unknown, timeoutMs = 2_000, withinMs = 45_000): Promise<any> {
    const deadline = Date.now() + withinMs;
    let last: unknown = null;
    for (let i = 0; i < 200 && Date.now() < deadline; i++) {
      try {
        return await this.request(subject, body, timeoutMs);
      } catch (err) {
        last = err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    throw new Error(`${subject} never answered within ${withinMs} ms: ${String(last)}`);
  }

  /**
   * Reads the record (`actions.get`) until it is resolved or `withinMs`
   * passes, and returns the last one read; it never waits on `actions.await`,
   * so a service that dies and restarts meanwhile leaves no request hanging.
   */
  async untilResolved(invocationId: string, withinMs = 30_000): Promise<any> {
    const deadline = Date.now() + withinMs;
    let view = await this.requestUntilAnswered('actions.get', { invocation_id: invocationId });
    for (let i = 0; i < 300 && Date.now() < deadline && view.status !== 'resolved'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      view = await this.requestUntilAnswered('actions.get', { invocation_id: invocationId });
    }
    return view;
  }

  /** The invocation's events, as any reader of the journal sees them. */
  events(invocationId: string): Promise<StoredEvent[]> {
    return new Journal(this.res, this.prefix, 'e2e-reader').read(invocationId);
  }

  /** Polls the journal (bounded) until an event of `type` is there, and returns it. */
  async waitForEvent(invocationId: string, type: EventType, timeoutMs = 15_000): Promise<StoredEvent> {
    const deadline = Date.now() + timeoutMs;
    for (let i = 0; i < 500 && Date.now() < deadline; i++) {
      const found = (await this.events(invocationId)).find((e) => e.type === type);
      if (found !== undefined) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${type} never reached the journal of ${invocationId}:\n${this.lines.slice(-15).join('\n')}`);
  }

  async api(path: string): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.apiUrl}${path}`);
    return { status: res.status, body: await res.json() };
  }

  /** Polls the read API until `accept` holds for the record (bounded). */
  async projected(id: string, accept: (view: any) => boolean = () => true): Promise<any> {
    const deadline = Date.now() + 15_000;
    let last: { status: number; body: any } = { status: 0, body: null };
    for (let i = 0; i < 150 && Date.now() < deadline; i++) {
      last = await this.api(`/v1/invocations/${id}`);
      if (last.status === 200 && accept(last.body)) return last.body;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`invocation ${id} was not projected as expected: ${JSON.stringify(last)}`);
  }

  async streamMessages(): Promise<number> {
    const info = await this.res.jsm.streams.info(this.res.names.stream);
    return info.state.messages;
  }

  /** Runs the built CLI with this stack's environment. */
  cli(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(REPO_ROOT, 'apps/cli/bin/postern.js'), ...args], {
        cwd: REPO_ROOT,
        env: { ...process.env, ...this.env },
        stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
      if (input !== undefined) child.stdin?.end(input);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d) => (stdout += d));
      child.stderr!.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? -1, stdout, stderr });
      });
    });
  }

  private async stopLater(): Promise<void> {
    await Promise.all(this.later.map((stack) => stack.stop()));
    this.later = [];
  }

  async stop(): Promise<void> {
    await this.nc?.close().catch(() => undefined);
    await this.stopLater();
    await this.stack?.stop();
    await this.nats.stop();
    await rm(this.home, { recursive: true, force: true });
  }
}
