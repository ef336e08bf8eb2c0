import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, EventType, Outcome } from '@postern/contract';
import { startHostileHttpServer, startNatsServer, type HostileHttpServer, type NatsServerHandle } from '@postern/testkit';
import { CANARY, DispatcherHarness, lastOf, ofType, policyYaml, TEST_PREFIX } from './dispatcher-test-harness.js';
import { FaultPoint } from './fault-point.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/**
 * The real process, really killed: `POSTERN_FAULT` makes the built
 * dispatcher SIGKILL itself at a point; another instance then recovers the
 * attempt as unknown, and the remote never sees a second request.
 */
describe.skipIf(!existsSync(MAIN))('dispatcher process killed with SIGKILL', () => {
  let nats: NatsServerHandle;
  let h: DispatcherHarness;
  let hostile: HostileHttpServer;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    hostile = await startHostileHttpServer();
    h = await DispatcherHarness.start(nats.url, policyYaml({ leaseMs: 1000 }));
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await h?.close();
    await hostile?.close();
    await nats?.stop();
  });

  function startChild(fault: FaultPoint): { child: ChildProcess; output: () => string; exited: Promise<NodeJS.Signals | number | null> } {
    let out = '';
    const child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env['PATH'] ?? '',
        NATS_URL: nats.url,
        POSTERN_PREFIX: TEST_PREFIX,
        POSTERN_HOME: h.home,
        POSTERN_CONFIG: h.configPath,
        POSTERN_FAULT: fault,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
    return { child, output: () => out, exited };
  }

  async function waitForLine(output: () => string, text: string, ms = 15_000): Promise<void> {
    const until = Date.now() + ms;
    for (let i = 0; i < 1_000 && Date.now() < until; i++) {
      if (output().includes(text)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`child never logged ${text}: ${output()}`);
  }

  it('after REQUEST_SENT: the process dies, the attempt is recovered as unknown, one effect only', async () => {
    const proc = startChild(FaultPoint.after_request_sent);
    await waitForLine(proc.output, 'dispatcher.started');
    const before = hostile.effects('/hang');
    const id = await h.submit({ url: `${hostile.origin}/hang` });
    expect(await proc.exited).toBe('SIGKILL');
    const atDeath = await h.events(id);
    expect(ofType(atDeath, EventType.DISPATCH_STARTED)).toHaveLength(1);
    expect(ofType(atDeath, EventType.REQUEST_SENT)).toHaveLength(1);
    expect(hostile.effects('/hang')).toBe(before + 1);

    const rescuer = await h.startDispatcher({ recoveryIntervalMs: 200 });
    const history = await h.waitFor(id, (hh) => hh.some((e) => e.type === EventType.RECOVERY_OBSERVED), 15_000);
    await rescuer.app.close();
    expect(lastOf(history, EventType.RECOVERY_OBSERVED).data).toMatchObject({
      outcome: Outcome.unknown,
      code: Code.REMOTE_OUTCOME_UNKNOWN,
      recovered: true,
    });
    expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(1);
    expect(hostile.effects('/hang')).toBe(before + 1);
    expect(JSON.stringify(history)).not.toContain(CANARY);
    expect(proc.output()).not.toContain(CANARY);
  });

  it('after DISPATCH_STARTED: the process dies before a byte is sent, and nothing is ever sent', async () => {
    const proc = startChild(FaultPoint.after_dispatch_started);
    await waitForLine(proc.output, 'dispatcher.started');
    const before = hostile.effects('/status/201');
    const id = await h.submit({ url: `${hostile.origin}/status/201` });
    expect(await proc.exited).toBe('SIGKILL');
    const rescuer = await h.startDispatcher({ recoveryIntervalMs: 200 });
    const history = await h.waitFor(id, (hh) => hh.some((e) => e.type === EventType.RECOVERY_OBSERVED), 15_000);
    await rescuer.app.close();
    expect(ofType(history, EventType.REQUEST_SENT)).toHaveLength(0);
    expect(hostile.effects('/status/201')).toBe(before);
  });
});
