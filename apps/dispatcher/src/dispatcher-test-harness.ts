import 'reflect-metadata';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  buildBinding,
  canonicalJson,
  CredentialType,
  EventType,
  EvidenceSource,
  leaseIsLive,
  ServiceName,
  subjects,
  summarizeCommand,
  type ActionCommand,
  type Code,
  type CredentialMeta,
  type Lease,
  type Policy,
  type StoredEvent,
} from '@postern/contract';
import {
  connectNats,
  digestOf,
  encodeKvKey,
  ensureJournal,
  Journal,
  kvGetJson,
  putPayload,
  type JournalResources,
} from '@postern/journal';
import { matchTarget, parsePolicy, policyEntryDigest } from '@postern/policy';
import { parsePublicKey, sealTo } from '@postern/vault';
import { newInstanceId, type DispatcherConfig } from './dispatcher-config.js';
import type { DispatcherLog, LogFields } from './dispatcher-log.js';
import { DispatcherModule } from './dispatcher.module.js';
import { DispatcherService, type DispatcherRuntimeOptions } from './dispatcher.service.js';
import { noFaults, type FaultSwitch } from './fault-point.js';

/**
 * Test wiring: the dispatcher in-process against a real nats-server, an
 * intake stand-in that appends the events up to CREDENTIAL_AUTHORIZED by
 * hand, and a credential-service stand-in on the release subject that seals
 * exactly as the real one does (to the attempt's one-time key, only for the
 * live lease's holder, attempt and generation).
 */

export const TEST_PREFIX = 'dsp';
export const CANARY = 'canary-SECRET-7c1e9d0b42';

export interface ReleaseBehaviour {
  /** Never answer, as a credential service that is down. */
  silent?: boolean;
  /** Refuse with this code instead of releasing. */
  refuse?: Code;
  credentialType?: CredentialType;
  user?: string;
  header_name?: string;
  param?: string;
  version?: number;
  /** The secret released (default: CANARY). */
  secret?: string;
}

export interface CapturedLog extends DispatcherLog {
  lines: string[];
}

export function capturingLog(): CapturedLog {
  const lines: string[] = [];
  const write = (level: string) => (event: string, fields: LogFields = {}) => {
    lines.push(JSON.stringify({ level, event, ...fields }));
  };
  return { lines, info: write('info'), error: write('error') };
}

export function policyYaml(opts: { leaseMs?: number; connectAttempts?: number; extra?: string } = {}): string {
  return `targets:
  - match: "http://127.0.0.1:*"
    timeouts_ms: {connect: 1000, response_headers: 1500, body: 1500}
    limits: {request_body_bytes: 262144, response_body_bytes: 4096, response_read_bytes: 65536}
    response_headers: [x-extra]
${opts.extra ?? ''}dispatch:
  connect_attempts: ${opts.connectAttempts ?? 3}
  budget: 5
  auto_retry: false
  lease_ms: ${opts.leaseMs ?? 3000}
results:
  retention_s: 3600
`;
}

export interface SubmitOptions {
  method?: ActionCommand extends { http?: infer H } ? (H extends { method: infer M } ? M : never) : never;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  credentialType?: CredentialType;
  idempotencyKey?: string;
  /** Records a fingerprint that does not match the binding (a tampered or changed binding). */
  fingerprintOverride?: string;
}

export interface SubmitSshOptions {
  port: number;
  command: string;
  stdin?: string;
  credentialType?: CredentialType;
  user?: string;
  timeoutMs?: number;
}

export class DispatcherHarness {
  readonly journal: Journal;
  readonly releases: { invocation_id: string; attempt: number; generation: number }[] = [];
  release: ReleaseBehaviour = {};
  private readonly apps: INestApplicationContext[] = [];
  private sub: Subscription | null = null;
  private counter = 0;

  private constructor(
    readonly natsUrl: string,
    readonly nc: NatsConnection,
    readonly res: JournalResources,
    readonly home: string,
    readonly configPath: string,
    readonly policy: Policy,
  ) {
    this.journal = new Journal(res, TEST_PREFIX, 'test-intake');
  }

  static async start(natsUrl: string, yaml: string = policyYaml()): Promise<DispatcherHarness> {
    const home = await mkdtemp(join(tmpdir(), 'postern-dispatcher-'));
    const configPath = join(home, 'postern.yaml');
    await writeFile(configPath, yaml, 'utf8');
    const parsed = parsePolicy(yaml);
    if (!parsed.ok) throw new Error(`bad test policy: ${JSON.stringify(parsed.errors)}`);
    const nc = await connectNats({ servers: natsUrl });
    const res = await ensureJournal(nc, TEST_PREFIX);
    const h = new DispatcherHarness(natsUrl, nc, res, home, configPath, parsed.policy);
    h.serveReleases();
    return h;
  }

  /** Starts one dispatcher process-equivalent (its own NATS connection and instance id). */
  async startDispatcher(
    options: DispatcherRuntimeOptions & { fault?: FaultSwitch; instanceId?: string } = {},
  ): Promise<{ app: INestApplicationContext; service: DispatcherService; instanceId: string }> {
    const instanceId = options.instanceId ?? newInstanceId();
    const config: DispatcherConfig = {
      servers: [this.natsUrl],
      prefix: TEST_PREFIX,
      home: this.home,
      configPath: this.configPath,
      instanceId,
      fault: null,
      concurrency: 2,
      dnsServers: [],
    };
    const app = await NestFactory.createApplicationContext(
      DispatcherModule.register(config, { releaseTimeoutMs: 2_000, ...options, fault: options.fault ?? noFaults }),
      { logger: false, abortOnError: false },
    );
    this.apps.push(app);
    return { app, service: app.get(DispatcherService), instanceId };
  }

  private serveReleases(): void {
    const subject = subjects(TEST_PREFIX).credentialsRelease;
    this.sub = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err !== null) return;
        void (async () => {
          const req = JSON.parse(new TextDecoder().decode(msg.data)) as {
            invocation_id: string;
            attempt: number;
            generation: number;
            holder: string;
            public_key: string;
          };
          if (this.release.silent === true) return;
          const reply = (body: unknown) => msg.respond(new TextEncoder().encode(JSON.stringify(body)));
          const lease = await kvGetJson<Lease>(this.res.kv.leases, encodeKvKey(req.invocation_id));
          const held = lease?.value ?? null;
          if (
            held === null ||
            !leaseIsLive(held, Date.now()) ||
            held.holder !== req.holder ||
            held.attempt !== req.attempt ||
            held.generation !== req.generation
          ) {
            reply({ error: { code: 'NOT_FOUND', phase: 'validation', outcome: 'not_attempted', retry: 'never', message: 'no lease' } });
            return;
          }
          this.releases.push({ invocation_id: req.invocation_id, attempt: req.attempt, generation: req.generation });
          if (this.release.refuse !== undefined) {
            reply({ error: { code: this.release.refuse, phase: 'credential_injection', outcome: 'not_attempted', retry: 'after_correction', message: 'refused' } });
            return;
          }
          const type = this.release.credentialType ?? CredentialType.http_bearer;
          const credential: Record<string, unknown> = { id: 'api', version: this.release.version ?? 1, type, injection: type };
          if (this.release.user !== undefined) credential['user'] = this.release.user;
          if (this.release.header_name !== undefined) credential['header_name'] = this.release.header_name;
          if (this.release.param !== undefined) credential['param'] = this.release.param;
          const sealed = sealTo(parsePublicKey(req.public_key), new TextEncoder().encode(this.release.secret ?? CANARY));
          reply({ secret_sealed: sealed, credential });
        })();
      },
    });
  }

  /** As `submit`, for an `ssh.exec` to 127.0.0.1 with an SSH credential of `user`. */
  async submitSsh(opts: SubmitSshOptions): Promise<string> {
    this.counter++;
    const invocationId = `act_S${Date.now().toString(36)}${this.counter}${Math.random().toString(36).slice(2, 8)}`;
    const type = opts.credentialType ?? CredentialType.ssh_key;
    const command: ActionCommand = {
      client_request_id: `req-${invocationId}`,
      caller: 'test',
      action: 'ssh.exec',
      credential: 'api',
      ssh: { host: '127.0.0.1', port: opts.port, command: opts.command, ...(opts.stdin !== undefined ? { stdin: { text: opts.stdin } } : {}) },
      ...(opts.timeoutMs !== undefined ? { timeout_ms: opts.timeoutMs } : {}),
    };
    let bodyDigest: string | null = null;
    if (opts.stdin !== undefined) bodyDigest = (await putPayload(this.res, new TextEncoder().encode(opts.stdin))).digest;
    const target = matchTarget(this.policy, { kind: 'ssh', host: '127.0.0.1', port: opts.port });
    if (target === null) throw new Error('test ssh target is outside the test policy');
    const credential: CredentialMeta = {
      id: 'api',
      version: 1,
      type,
      scope: [`ssh://${opts.user ?? 'deploy'}@127.0.0.1:*`],
      user: opts.user ?? 'deploy',
      approval: 'none',
      created_at: new Date().toISOString(),
    };
    return this.appendAccepted(invocationId, command, target, credential, bodyDigest, opts.timeoutMs, undefined);
  }

  /** Appends ACTION_ACCEPTED, PREFLIGHT_VALIDATED and CREDENTIAL_AUTHORIZED as intake and the credential service would. */
  async submit(opts: SubmitOptions): Promise<string> {
    this.counter++;
    const invocationId = `act_T${Date.now().toString(36)}${this.counter}${Math.random().toString(36).slice(2, 8)}`;
    const type = opts.credentialType ?? CredentialType.http_bearer;
    const command: ActionCommand = {
      client_request_id: `req-${invocationId}`,
      caller: 'test',
      action: 'http.request',
      credential: 'api',
      http: {
        method: opts.method ?? 'GET',
        url: opts.url,
        ...(opts.headers !== undefined ? { headers: opts.headers } : {}),
        ...(opts.body !== undefined ? { body: { text: opts.body } } : {}),
      },
      ...(opts.idempotencyKey !== undefined ? { idempotency_key: opts.idempotencyKey } : {}),
      ...(opts.timeoutMs !== undefined ? { timeout_ms: opts.timeoutMs } : {}),
    };
    let bodyDigest: string | null = null;
    if (opts.body !== undefined) bodyDigest = (await putPayload(this.res, new TextEncoder().encode(opts.body))).digest;
    const url = new URL(opts.url);
    const target = matchTarget(this.policy, { kind: 'http', scheme: url.protocol === 'https:' ? 'https' : 'http', host: url.hostname, port: Number(url.port) });
    if (target === null) throw new Error('test url is outside the test policy');
    const credential: CredentialMeta = {
      id: 'api',
      version: 1,
      type,
      scope: ['http://127.0.0.1:*'],
      approval: 'none',
      created_at: new Date().toISOString(),
    };
    return this.appendAccepted(invocationId, command, target, credential, bodyDigest, opts.timeoutMs, opts.fingerprintOverride);
  }

  private async appendAccepted(
    invocationId: string,
    command: ActionCommand,
    target: NonNullable<ReturnType<typeof matchTarget>>,
    credential: CredentialMeta,
    bodyDigest: string | null,
    timeoutMs: number | undefined,
    fingerprintOverride: string | undefined,
  ): Promise<string> {
    const type = credential.type;
    const opts = { timeoutMs, fingerprintOverride };
    const acceptedAt = new Date().toISOString();
    const binding = buildBinding({
      command,
      target,
      policyDigest: policyEntryDigest(target, this.policy.dispatch),
      credential,
      bodyDigest,
      dispatch: this.policy.dispatch,
      acceptedAt,
    });
    const draft = (type: EventType, data: Record<string, unknown>) => ({
      type,
      attempt: 0,
      generation: 0,
      at: new Date().toISOString(),
      source: EvidenceSource.transport_observed,
      service: ServiceName.intake,
      data,
    });
    const deadline = opts.timeoutMs === undefined ? null : new Date(Date.parse(acceptedAt) + opts.timeoutMs).toISOString();
    await this.appendOrThrow(invocationId, draft(EventType.ACTION_ACCEPTED, {
      client_request_id: command.client_request_id,
      caller: 'test',
      action: command.action,
      command_digest: digestOf(canonicalJson(command)),
      command: summarizeCommand(command, bodyDigest),
      deadline_at: deadline,
    }));
    await this.appendOrThrow(invocationId, draft(EventType.PREFLIGHT_VALIDATED, { binding, request_fingerprint: opts.fingerprintOverride ?? digestOf(canonicalJson(binding)) }));
    await this.appendOrThrow(invocationId, {
      ...draft(EventType.CREDENTIAL_AUTHORIZED, { credential: { id: 'api', version: 1, injection: type } }),
      service: ServiceName.credential,
    });
    return invocationId;
  }

  async appendOrThrow(invocationId: string, d: Parameters<Journal['appendNext']>[1] extends (h: StoredEvent[]) => infer R ? Exclude<R, null> : never): Promise<void> {
    const r = await this.journal.appendNext(invocationId, () => d);
    if (r.status !== 'appended') throw new Error(`test append lost: ${d.type}`);
  }

  events(invocationId: string): Promise<StoredEvent[]> {
    return this.journal.read(invocationId);
  }

  /** Polls the journal until `done` holds; bounded in time and rounds. */
  async waitFor(invocationId: string, done: (h: StoredEvent[]) => boolean, timeoutMs = 10_000): Promise<StoredEvent[]> {
    const until = Date.now() + timeoutMs;
    let history: StoredEvent[] = [];
    for (let round = 0; round < 1_000 && Date.now() < until; round++) {
      history = await this.events(invocationId);
      if (done(history)) return history;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting on ${invocationId}; saw ${history.map((e) => e.type).join(',')}`);
  }

  async close(): Promise<void> {
    for (const app of this.apps.reverse()) await app.close().catch(() => undefined);
    this.sub?.unsubscribe();
    await this.nc.close().catch(() => undefined);
  }
}

const RESOLUTIONS: ReadonlySet<string> = new Set([
  EventType.REMOTE_RESPONSE_COMPLETE,
  EventType.REMOTE_OUTCOME_UNKNOWN,
  EventType.RECOVERY_OBSERVED,
  EventType.PREFLIGHT_REJECTED,
  EventType.CREDENTIAL_REJECTED,
]);

/** The attempt has its last word: a resolution, or a final connection failure. */
export function resolved(h: readonly StoredEvent[]): boolean {
  return h.some((e) => RESOLUTIONS.has(e.type) || (e.type === EventType.CONNECTION_FAILED && e.data['final'] === true));
}

export function ofType(h: readonly StoredEvent[], type: EventType): StoredEvent[] {
  return h.filter((e) => e.type === type);
}

export function lastOf(h: readonly StoredEvent[], type: EventType): StoredEvent {
  const found = [...h].reverse().find((e) => e.type === type);
  if (found === undefined) throw new Error(`no ${type} in ${h.map((e) => e.type).join(',')}`);
  return found;
}
