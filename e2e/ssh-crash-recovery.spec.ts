import { Code, EventType, Outcome, Phase, Retry } from '@postern/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { SshFixture } from './support/ssh-fixture.js';

// The dispatcher dies with SIGKILL (its compiled-in fault switch) in the
// middle of an ssh.exec; the launcher restarts it; the restarted one must say
// `unknown`, recovered, and never run the command a second time.

let f: SshFixture | null = null;

afterEach(async () => {
  await f?.stop();
  f = null;
});

async function crashAndRecover(point: string, cmd: string) {
  f = await SshFixture.start({ prefix: `sshcrash${point.length}`, env: { POSTERN_FAULT: point }, leaseMs: 2000 });
  const submitted = await f.stack.request('actions.submit', {
    client_request_id: `ssh-crash-${point}-${process.pid}`,
    action: 'ssh.exec',
    credential: 'ssh-key',
    ssh: { host: '127.0.0.1', port: f.main.port, command: cmd },
  });
  expect(submitted.invocation_id, JSON.stringify(submitted)).toBeTruthy();
  const view = await f.stack.untilResolved(submitted.invocation_id);
  const events = await f.stack.events(submitted.invocation_id);
  return { view, types: events.map((e) => e.type), f };
}

describe('SIGKILL of the dispatcher during an ssh.exec', () => {
  it('after DISPATCH_STARTED, before the channel open: unknown, recovered, and the server ran nothing', async () => {
    const { view, types, f } = await crashAndRecover('after_dispatch_started', 'exit 0');
    expect(view.status, JSON.stringify(view)).toBe('resolved');
    expect(view.outcome).toBe(Outcome.unknown);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, phase: Phase.remote_execution, retry: Retry.reconcile });
    expect(view.evidence).toMatchObject({ recovered: true, dispatch_started: true });
    expect(types.filter((t) => t === EventType.DISPATCH_STARTED)).toHaveLength(1);
    expect(types.at(-1)).toBe(EventType.RECOVERY_OBSERVED);
    // Past the lease and the recovery: still nothing ran.
    await new Promise((r) => setTimeout(r, 2500));
    expect(f.main.effects()).toBe(0);
    expect(f.main.channelOpens).toBe(0);
  }, 90_000);

  it('after the command exited, before its result was journalled: unknown, recovered, and exactly one effect', async () => {
    // The SSH path has no REQUEST_SENT point (channel open and exec go out in
    // one step); the last moment before the verdict is the one that matters.
    const { view, types, f } = await crashAndRecover('before_response_complete', 'exit 0');
    expect(view.status, JSON.stringify(view)).toBe('resolved');
    expect(view.outcome).toBe(Outcome.unknown);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, phase: Phase.remote_execution, retry: Retry.reconcile });
    expect(view.evidence.recovered).toBe(true);
    expect(types.filter((t) => t === EventType.DISPATCH_STARTED)).toHaveLength(1);
    expect(types).not.toContain(EventType.REMOTE_RESPONSE_COMPLETE);
    expect(types.at(-1)).toBe(EventType.RECOVERY_OBSERVED);
    // Past the lease and the recovery: the command ran once and only once.
    await new Promise((r) => setTimeout(r, 2500));
    expect(f.main.effects('exit 0')).toBe(1);
    expect(f.main.execs.filter((e) => e.command === 'exit 0')).toHaveLength(1);
  }, 90_000);
});
