import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import {
  Action,
  classify,
  Code,
  CODE_PHASE,
  CredentialType,
  EventType,
  EvidenceSource,
  MESSAGES,
  Phase,
  Retry,
  SetupFailure,
  Stage,
  subjects,
  type Binding,
  type ReleasedCredential,
  type StoredEvent,
  type TargetPolicy,
} from '@postern/contract';
import { getPayload, Journal, type EventDraft, type HandleVerdict } from '@postern/journal';
import { openConnection, secretForms, type HttpConnection } from '@postern/transport-http';
import { openSshConnection, type SshAuth, type SshConnection } from '@postern/transport-ssh';
import { AttemptExchange } from './attempt-exchange.js';
import { AttemptJournal } from './attempt-journal.js';
import type { AttemptLease } from './attempt-lease.js';
import { checkBinding } from './binding-check.js';
import type { DispatcherDeps } from './dispatcher-deps.js';
import { dispatcherDraft, writerName } from './dispatcher-event.js';
import { errorName } from './dispatcher-log.js';
import { FaultPoint } from './fault-point.js';
import { hasCancel, type InvocationPlan } from './invocation-plan.js';
import { followUpMethod, proxyAddress } from './redirect-follow.js';
import { targetOf, type BoundTarget } from './request-plan.js';
import { sshSecretForms } from './ssh-secret-forms.js';
import { requestSecret } from './secret-release.js';
import { SshExchange } from './ssh-exchange.js';
import { sshTargetOf, type SshBoundTarget } from './ssh-target.js';

type DispatchPlan = Extract<InvocationPlan, { kind: 'dispatch' }>;

const HTTP_INJECTIONS: ReadonlySet<string> = new Set([
  CredentialType.http_bearer,
  CredentialType.http_basic,
  CredentialType.http_header,
  CredentialType.http_query,
]);

const SSH_INJECTIONS: ReadonlySet<string> = new Set([CredentialType.ssh_key, CredentialType.ssh_password]);

/** How a connection set-up failed, as either transport reports it. */
type SetupFailed = { failure: SetupFailure; stage: Stage; diagnostic: string };

/** How soon a message comes back when the attempt stopped before doing anything. */
const REDECIDE_MS = 200;
const RELEASE_UNAVAILABLE_MS = 2_000;

/** The command line ACTION_ACCEPTED recorded; null when there is none. */
function sshCommandOf(command: unknown): string | null {
  const ssh = (command as { ssh?: { command?: unknown } } | null)?.ssh;
  return typeof ssh?.command === 'string' ? ssh.command : null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * One attempt of one invocation under a lease this worker holds: every step
 * is appended before what it permits is done, and an append this worker
 * loses stops it there. Nothing reaches the transport before DISPATCH_STARTED
 * is acknowledged by JetStream.
 */
export class AttemptRun {
  private readonly journal: AttemptJournal;
  private secret: Uint8Array | null = null;
  /** DISPATCH_STARTED is durable: from here on the attempt is never run again. */
  private dispatched = false;
  private forms: string[] = [];

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly plan: DispatchPlan,
    history: readonly StoredEvent[],
    private readonly lease: AttemptLease,
  ) {
    const writer = new Journal(deps.res, deps.prefix, writerName(deps.instanceId, lease.generation));
    this.journal = new AttemptJournal(writer, plan.state.invocation_id, history);
  }

  private get id(): string {
    return this.plan.state.invocation_id;
  }

  async run(): Promise<HandleVerdict> {
    try {
      return await this.steps();
    } catch (err) {
      // Before dispatch nothing was done that another try must respect, so
      // the lease goes back at once; after it, the lease runs out and
      // recovery closes the attempt.
      if (!this.dispatched) await this.lease.release().catch(() => false);
      throw err;
    } finally {
      this.secret?.fill(0);
      this.secret = null;
      this.lease.stopKeepAlive();
    }
  }

  private async steps(): Promise<HandleVerdict> {
    const { binding, attempt } = this.plan;
    this.lease.keepAlive(() => this.deps.log.error('lease.lost', { invocation_id: this.id, attempt }));

    const check = checkBinding(binding, this.plan.fingerprint, this.deps.policy.current());
    if (!check.ok) return this.refuseBinding(check.message);
    if (binding.action === Action.ssh_exec) return this.sshSteps(binding, check.entry);
    const boundTarget = targetOf(binding) as BoundTarget;
    // A followed redirect keeps the bound origin (so the policy entry and the
    // credential scope just checked are the ones that govern it) and takes
    // only the Location's path and query.
    const redirect = this.plan.redirect;
    const bound: BoundTarget = redirect === null ? boundTarget : { ...boundTarget, path: redirect.location };
    const line = followUpMethod(binding.method ?? 'GET', redirect?.status ?? 0);
    let body: Uint8Array | null = null;
    if (binding.body_digest !== null && line.keepBody) {
      body = await getPayload(this.deps.res, binding.body_digest);
      if (body === null) return this.refuseBinding('The bound request body is no longer in the payload store.');
    }

    // The secret comes before LEASE_ACQUIRED is journaled: while the
    // credential service is away, retries leave no trace but the KV lease,
    // instead of one event per try. The plaintext stays in this attempt's
    // memory, and a lost LEASE_ACQUIRED below still stops it before any
    // connection is made.
    const credential = await this.takeSecret(binding);
    if (credential.kind === 'stop') return credential.verdict;

    const leaseStop = await this.announceLease();
    if (leaseStop !== null) return leaseStop;

    let setup = await this.connect(bound, check.entry);
    if (setup.kind === 'stop') return setup.verdict;

    const deadline = this.deadlineMs();
    const httpConn = setup.conn;
    const gateStop = await this.gateBeforeDispatch(deadline, () => this.deps.pool.release(httpConn));
    if (gateStop !== null) return gateStop;

    if (!setup.conn.alive) {
      // The peer closed it while the lease was checked: nothing was handed
      // to it, so this is no dispatch; set up once more instead.
      this.deps.pool.discard(setup.conn);
      setup = await this.connect(bound, check.entry);
      if (setup.kind === 'stop') return setup.verdict;
    }
    const { conn, connectTry } = setup;
    const connection: Record<string, unknown> = { id: conn.id, reused: conn.reused };
    if (conn.remoteAddress !== '') connection['remote_address'] = `${conn.remoteAddress}:${conn.remotePort}`;
    if (conn.tlsPeerSha256 !== undefined) connection['tls_peer_sha256'] = conn.tlsPeerSha256;
    const started: Record<string, unknown> = { connect_try: connectTry, connection };
    if (redirect !== null) started['follows_redirect'] = { attempt: redirect.attempt, status: redirect.status, location: redirect.location, method: line.method };
    const dispatchStop = await this.startDispatch(started, connectTry, conn.reused, () => this.deps.pool.release(conn));
    if (dispatchStop !== null) return dispatchStop;
    const exchange = new AttemptExchange(this.exchangeContext());
    return exchange.run(conn, bound, check.entry, credential.credential, body, deadline, line);
  }

  /** LEASE_ACQUIRED in the journal; a lost append stops the attempt before any connection. */
  private async announceLease(): Promise<HandleVerdict | null> {
    const leaseEvent = await this.journal.append(
      () => this.draft(EventType.LEASE_ACQUIRED, { holder: this.deps.instanceId, expires_at: new Date(this.lease.expiresAtMs).toISOString() }),
      false,
    );
    if (!leaseEvent) return this.stopBefore('lease_event_lost');
    await this.fault(FaultPoint.after_lease_acquired);
    return null;
  }

  /** The caller's deadline (ACTION_ACCEPTED `deadline_at`) in epoch ms, if it set one. */
  private deadlineMs(): number | null {
    return this.plan.deadline_at === null ? null : Date.parse(this.plan.deadline_at);
  }

  /**
   * The last checks before DISPATCH_STARTED, for either transport: the lease
   * is still ours, and the caller's deadline has not passed (else the action
   * ends not attempted). `dropConnection` lets go of the connection set up.
   */
  private async gateBeforeDispatch(deadline: number | null, dropConnection: () => void): Promise<HandleVerdict | null> {
    if (!(await this.lease.stillOurs())) {
      dropConnection();
      return this.stopBefore('lease_lost');
    }
    if (deadline !== null && this.deps.now() >= deadline) {
      dropConnection();
      await this.journal.append(
        (h) => (hasCancel(h) ? null : this.draft(EventType.CALLER_CANCELLED, { phase: Phase.connection_setup, dispatched: false })),
        false,
      );
      await this.lease.release();
      return 'ack';
    }
    return null;
  }

  /** DISPATCH_STARTED, acknowledged: only after this may a byte go to the transport. */
  private async startDispatch(
    started: Record<string, unknown>,
    connectTry: number,
    reused: boolean,
    dropConnection: () => void,
  ): Promise<HandleVerdict | null> {
    const dispatched = await this.journal.append(() => this.draft(EventType.DISPATCH_STARTED, started), false);
    if (!dispatched) {
      dropConnection();
      return this.stopBefore('dispatch_lost');
    }
    this.dispatched = true;
    this.deps.log.info('attempt.dispatched', { invocation_id: this.id, attempt: this.plan.attempt, connect_try: connectTry, reused });
    await this.fault(FaultPoint.after_dispatch_started);
    return null;
  }

  /** What an exchange (HTTP or SSH) needs from this attempt. */
  private exchangeContext() {
    return {
      deps: this.deps,
      plan: this.plan,
      invocationId: this.id,
      lease: this.lease,
      journal: this.journal,
      secret: this.secret as Uint8Array,
      forms: this.forms,
      draft: (type: EventType, data: Record<string, unknown>, source?: EvidenceSource) => this.draft(type, data, source),
      fault: (point: FaultPoint) => this.fault(point),
    };
  }

  /** The secret for this attempt, or the verdict when there is none to have. */
  private async takeSecret(
    binding: Binding,
  ): Promise<{ kind: 'ok'; credential: ReleasedCredential } | { kind: 'stop'; verdict: HandleVerdict }> {
    let release;
    try {
      release = await requestSecret(
        this.deps.res.nc,
        subjects(this.deps.prefix).credentialsRelease,
        { invocation_id: this.id, attempt: this.plan.attempt, generation: this.lease.generation, holder: this.deps.instanceId },
        this.deps.releaseTimeoutMs,
      );
    } catch (err) {
      // The credential service is away or answered nonsense: nothing was
      // decided, so let go and come back.
      this.deps.log.error('secret.unavailable', { invocation_id: this.id, error: errorName(err) });
      await this.lease.release();
      return { kind: 'stop', verdict: { nak_delay_ms: RELEASE_UNAVAILABLE_MS } };
    }
    if (release.kind === 'refused') {
      if (CODE_PHASE[release.code] !== Phase.credential_injection) {
        // Not a verdict on the credential (the service did not see our lease): decide again later.
        this.deps.log.error('secret.refused', { invocation_id: this.id, code: release.code });
        await this.lease.release();
        return { kind: 'stop', verdict: { nak_delay_ms: RELEASE_UNAVAILABLE_MS } };
      }
      return { kind: 'stop', verdict: await this.refuseCredential(release.code, release.action_required) };
    }
    this.secret = release.secret;
    const c = release.credential;
    if (c.id !== binding.credential.id || c.version !== binding.credential.version) {
      return { kind: 'stop', verdict: await this.refuseCredential(Code.CREDENTIAL_MISSING, null) };
    }
    const mode = c.injection ?? c.type;
    const ssh = binding.action === Action.ssh_exec;
    // An SSH login needs its user; a credential without one cannot be injected.
    const usable = ssh ? SSH_INJECTIONS.has(mode) && typeof c.user === 'string' && c.user !== '' : HTTP_INJECTIONS.has(mode);
    if (!usable) {
      return {
        kind: 'stop',
        verdict: await this.refuseCredential(Code.INJECTION_MODE_UNSUPPORTED, null),
      };
    }
    this.forms = ssh ? sshSecretForms(release.secret) : secretForms(release.secret, c.user === undefined ? {} : { user: c.user });
    return { kind: 'ok', credential: { ...c, type: mode } };
  }

  /**
   * The SSH attempt: the same lease, secret and journal discipline as HTTP.
   * Transport, host key, user auth complete before DISPATCH_STARTED; the
   * channel open and the exec request go out only after it is acknowledged.
   */
  private async sshSteps(binding: Binding, entry: TargetPolicy): Promise<HandleVerdict> {
    const target = sshTargetOf(binding) as SshBoundTarget;
    const command = sshCommandOf(this.plan.state.command);
    if (command === null) return this.refuseBinding('The accepted command has no SSH command line.');
    let stdin: Uint8Array | null = null;
    if (binding.body_digest !== null) {
      stdin = await getPayload(this.deps.res, binding.body_digest);
      if (stdin === null) return this.refuseBinding('The bound stdin is no longer in the payload store.');
    }
    const credential = await this.takeSecret(binding);
    if (credential.kind === 'stop') return credential.verdict;

    const leaseStop = await this.announceLease();
    if (leaseStop !== null) return leaseStop;

    const user = credential.credential.user as string;
    let setup = await this.sshConnect(target, entry, user, credential.credential.type);
    if (setup.kind === 'stop') return setup.verdict;
    const deadline = this.deadlineMs();
    const sshConn = setup.conn;
    const gateStop = await this.gateBeforeDispatch(deadline, () => sshConn.destroy());
    if (gateStop !== null) return gateStop;
    if (!setup.conn.alive) {
      // Dropped while the lease was checked: nothing was sent on it, so set up once more.
      setup = await this.sshConnect(target, entry, user, credential.credential.type);
      if (setup.kind === 'stop') return setup.verdict;
    }
    const { conn, connectTry } = setup;
    const started = {
      connect_try: connectTry,
      connection: {
        id: conn.id,
        reused: false,
        remote_address: `${conn.remoteAddress}:${conn.remotePort}`,
        ssh_host_key_sha256: conn.hostKeySha256,
      },
    };
    const dispatchStop = await this.startDispatch(started, connectTry, false, () => conn.destroy());
    if (dispatchStop !== null) return dispatchStop;
    const exchange = new SshExchange(this.exchangeContext());
    return exchange.run(conn, entry, command, stdin, deadline);
  }

  /** SSH set-up (transport, pinned host key, user auth), up to the bound number of tries; each failure is its own row. */
  private async sshConnect(
    target: SshBoundTarget,
    entry: TargetPolicy,
    username: string,
    mode: CredentialType,
  ): Promise<{ kind: 'ok'; conn: SshConnection; connectTry: number } | { kind: 'stop'; verdict: HandleVerdict }> {
    const secret = this.secret as Uint8Array;
    const auth: SshAuth =
      mode === CredentialType.ssh_key
        ? { kind: CredentialType.ssh_key, privateKey: secret }
        : { kind: CredentialType.ssh_password, password: Buffer.from(secret).toString('utf8') };
    // The pins are passed as they are: an empty list refuses every host key.
    return this.connectTries(() =>
      openSshConnection(target, {
        connectTimeoutMs: entry.timeouts_ms.connect,
        hostKeys: entry.host_keys,
        username,
        auth,
        ...(this.deps.lookup !== undefined ? { lookup: this.deps.lookup } : {}),
      }),
    );
  }

  /** Connection set-up, up to the bound number of tries; each failure is its own row. */
  private async connect(
    bound: BoundTarget,
    entry: TargetPolicy,
  ): Promise<{ kind: 'ok'; conn: HttpConnection; connectTry: number } | { kind: 'stop'; verdict: HandleVerdict }> {
    let ca: string[] | undefined;
    if (entry.ca_file !== undefined) {
      const path = isAbsolute(entry.ca_file) ? entry.ca_file : join(this.deps.configDir, entry.ca_file);
      try {
        ca = [await readFile(path, 'utf8')];
      } catch {
        const verdict = await this.connectionFailed(1, true, {
          failure: SetupFailure.tls_cert_rejected,
          stage: Stage.tls_handshake,
          diagnostic: 'ca_file_unreadable',
        });
        return { kind: 'stop', verdict: verdict ?? 'ack' };
      }
    }
    let proxy: { host: string; port: number } | undefined;
    if (entry.proxy !== undefined) {
      const address = proxyAddress(entry.proxy);
      if (address === null) {
        const verdict = await this.connectionFailed(1, true, {
          failure: SetupFailure.proxy_tunnel,
          stage: Stage.proxy_connect,
          diagnostic: 'proxy_unsupported',
        });
        return { kind: 'stop', verdict: verdict ?? 'ack' };
      }
      proxy = address;
    }
    return this.connectTries(
      () =>
        openConnection(bound.target, {
          connectTimeoutMs: entry.timeouts_ms.connect,
          ...(ca !== undefined ? { ca } : {}),
          ...(proxy !== undefined ? { proxy } : {}),
          ...(this.deps.lookup !== undefined ? { lookup: this.deps.lookup } : {}),
        }),
      () => this.deps.pool.acquire(bound.origin),
    );
  }

  /**
   * Up to the bound number of connection tries (HTTP or SSH), each failure a
   * row of its own; a kept-alive connection from `reuse` is taken first.
   */
  private async connectTries<C>(
    open: () => Promise<{ ok: true; connection: C } | ({ ok: false } & SetupFailed)>,
    reuse: () => C | null = () => null,
  ): Promise<{ kind: 'ok'; conn: C; connectTry: number } | { kind: 'stop'; verdict: HandleVerdict }> {
    const tries = Math.max(1, this.plan.binding.connect_attempts);
    for (let connectTry = 1; connectTry <= tries; connectTry++) {
      if (this.lease.lost) return { kind: 'stop', verdict: this.stopBefore('lease_lost') };
      const pooled = reuse();
      if (pooled !== null) return { kind: 'ok', conn: pooled, connectTry };
      const opened = await open();
      if (opened.ok) return { kind: 'ok', conn: opened.connection, connectTry };
      const verdict = await this.connectionFailed(connectTry, connectTry === tries, opened);
      if (verdict !== null) return { kind: 'stop', verdict };
      await sleep(Math.min(100 * 2 ** (connectTry - 1), 1_000));
    }
    return { kind: 'stop', verdict: this.stopBefore('connect_tries_spent') };
  }

  /** Appends CONNECTION_FAILED; returns the verdict when the attempt ends here, null to try again. */
  private async connectionFailed(connectTry: number, lastTry: boolean, failed: SetupFailed): Promise<HandleVerdict | null> {
    const c = classify({ kind: 'setup', failure: failed.failure });
    // A failure that needs a correction will fail the same way on the next try.
    const final = lastTry || c.retry_rule === Retry.after_correction;
    const ok = await this.journal.append(
      () =>
        this.draft(EventType.CONNECTION_FAILED, {
          connect_try: connectTry,
          stage: failed.stage,
          code: c.code,
          retry_rule: c.retry_rule,
          diagnostic: failed.diagnostic,
          final,
        }),
      false,
    );
    this.deps.log.info('attempt.connect_failed', { invocation_id: this.id, connect_try: connectTry, code: c.code, final });
    if (!ok) return this.stopBefore('connection_failed_lost');
    if (!final) return null;
    await this.lease.release();
    return 'ack';
  }

  private async refuseBinding(message: string): Promise<HandleVerdict> {
    // A redirect's follow-up that fails its re-check is recorded: the fold
    // ends the invocation with it, the 3xx before it staying committed.
    if (this.plan.state.dispatches > 0 && this.plan.redirect === null) {
      // A later attempt cannot be refused as validation; it stops without dispatching.
      this.deps.log.error('attempt.binding_changed', { invocation_id: this.id, attempt: this.plan.attempt });
      await this.lease.release();
      return 'ack';
    }
    const ok = await this.journal.append(
      () => this.draft(EventType.PREFLIGHT_REJECTED, { code: Code.BINDING_CHANGED, field: 'binding', message }),
      false,
    );
    if (!ok) return this.stopBefore('binding_refusal_lost');
    await this.lease.release();
    return 'ack';
  }

  /** The service's own text is not repeated: only the contract's message for the code is journaled. */
  private async refuseCredential(code: Code, actionRequired: string | null): Promise<HandleVerdict> {
    if (this.plan.state.dispatches > 0 && this.plan.redirect === null) {
      await this.lease.release();
      return 'ack';
    }
    const data: Record<string, unknown> = { code, message: MESSAGES[code] };
    if (actionRequired !== null) data['action_required'] = actionRequired;
    const ok = await this.journal.append(() => this.draft(EventType.CREDENTIAL_REJECTED, data), false);
    this.deps.log.info('attempt.credential_rejected', { invocation_id: this.id, code });
    if (!ok) return this.stopBefore('credential_refusal_lost');
    await this.lease.release();
    return 'ack';
  }

  /** Stopped before dispatch with nothing decided: let go and have the message come back. */
  private stopBefore(reason: string): HandleVerdict {
    this.deps.log.info('attempt.stopped', { invocation_id: this.id, attempt: this.plan.attempt, reason });
    void this.lease.release().catch(() => undefined);
    return { nak_delay_ms: REDECIDE_MS };
  }

  private draft(type: EventType, data: Record<string, unknown>, source?: EvidenceSource): EventDraft {
    return dispatcherDraft(type, this.plan.attempt, this.lease.generation, this.deps.now(), data, source);
  }

  private async fault(point: FaultPoint): Promise<void> {
    if (!this.deps.fault.armed(point)) return;
    if (this.deps.fault.kills) this.lease.stopKeepAlive();
    await this.deps.fault.hit(point);
  }
}
