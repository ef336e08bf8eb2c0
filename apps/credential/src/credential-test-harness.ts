import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  Action,
  EventType,
  EvidenceSource,
  newInvocationId,
  ServiceName,
  type Binding,
  type JournalEvent,
  type StoredEvent,
} from '@postern/contract';
import type { Journal, JournalResources } from '@postern/journal';
import { silentLog, type WarningLog } from '@postern/service';
import { makeTempHome, startInProcessService } from '@postern/service/testing';
import { parsePublicKey, sealTo } from '@postern/vault';
import type { CredentialConfig } from './credential-config.js';
import { CREDENTIAL_PREFIX, CREDENTIAL_SUBJECTS, credentialQueue } from './credential.constants.js';
import { CredentialModule } from './credential.module.js';

/**
 * Test-only: runs the credential service in-process against a given
 * nats-server, exactly as main.ts wires it, and talks to it as an operator or
 * a dispatcher would: a bare NATS client sending plain JSON.
 */
export interface CredentialHarness {
  app: INestMicroservice;
  client: NatsConnection;
  res: JournalResources;
  journal: Journal;
  subjects: typeof CREDENTIAL_SUBJECTS;
  home: string;
  requestRaw(subject: string, body: string | Uint8Array): Promise<any>;
  request(subject: string, body: unknown): Promise<any>;
  /** Seals text to the service key that vault.status reports. */
  seal(text: string): Promise<string>;
  init(passphrase: string): Promise<any>;
  unlock(passphrase: string): Promise<any>;
  put(input: Record<string, unknown>, secret: string): Promise<any>;
  /** Appends ACTION_ACCEPTED and PREFLIGHT_VALIDATED for a binding, as the intake would. */
  seedValidated(binding: Binding): Promise<string>;
  events(invocationId: string): Promise<StoredEvent[]>;
  /** Polls the journal (bounded) until the predicate holds; returns the last history read. */
  waitFor(invocationId: string, done: (events: StoredEvent[]) => boolean, timeoutMs?: number): Promise<StoredEvent[]>;
  /** Stops the service (the home stays unless `removeHome`). */
  close(removeHome?: boolean): Promise<void>;
}

export interface StartOptions {
  home?: string;
  env?: NodeJS.ProcessEnv;
  log?: WarningLog;
}

export const TEST_SCRYPT_N = 2 ** 10;

export async function startCredential(natsUrl: string, options: StartOptions = {}): Promise<CredentialHarness> {
  const home = options.home ?? (await makeTempHome('credential')).home;
  const config: CredentialConfig = { servers: [natsUrl], prefix: CREDENTIAL_PREFIX, home, vaultFile: join(home, 'vault.json') };
  const svc = await startInProcessService(
    CredentialModule.register(config, { log: options.log ?? silentLog, vault: { scryptN: TEST_SCRYPT_N }, env: options.env ?? {} }),
    {
      service: 'credential service',
      natsUrl,
      prefix: CREDENTIAL_PREFIX,
      queue: credentialQueue(config.prefix),
      writer: `test-${randomBytes(4).toString('hex')}`,
    },
  );
  const { app, client, res, journal } = svc;
  const requestRaw = (subject: string, body: string | Uint8Array): Promise<any> => svc.requestRaw(subject, body);
  const request = (subject: string, body: unknown): Promise<any> => requestRaw(subject, JSON.stringify(body));
  const seal = async (text: string): Promise<string> => {
    const status = await request(CREDENTIAL_SUBJECTS.vaultStatus, {});
    return sealTo(parsePublicKey(status.public_key), new TextEncoder().encode(text));
  };
  const waitFor = async (id: string, done: (events: StoredEvent[]) => boolean, timeoutMs = 10_000): Promise<StoredEvent[]> => {
    const deadline = Date.now() + timeoutMs;
    let events = await journal.read(id);
    for (let i = 0; i < 500 && !done(events); i++) {
      if (Date.now() > deadline) throw new Error(`timed out waiting on ${id}: ${events.map((e) => e.type).join(',')}`);
      await new Promise((r) => setTimeout(r, 50));
      events = await journal.read(id);
    }
    return events;
  };
  return {
    app,
    client,
    res,
    journal,
    subjects: CREDENTIAL_SUBJECTS,
    home,
    requestRaw,
    request,
    seal,
    init: async (p) => request(CREDENTIAL_SUBJECTS.vaultInit, { passphrase_sealed: await seal(p) }),
    unlock: async (p) => request(CREDENTIAL_SUBJECTS.vaultUnlock, { passphrase_sealed: await seal(p) }),
    put: async (input, secret) => request(CREDENTIAL_SUBJECTS.credentialsPut, { ...input, secret_sealed: await seal(secret) }),
    seedValidated: async (binding) => {
      const id = newInvocationId(Date.now(), randomBytes(16));
      const at = new Date().toISOString();
      const base = { invocation_id: id, attempt: 0, generation: 0, at, source: EvidenceSource.transport_observed, service: ServiceName.intake };
      const accepted: JournalEvent = {
        ...base,
        type: EventType.ACTION_ACCEPTED,
        n: 1,
        data: {
          client_request_id: `req-${id}`,
          caller: 'agent-7',
          action: binding.action ?? Action.http_request,
          command_digest: 'sha256:00',
          command: null,
          deadline_at: null,
        },
      };
      const first = await journal.append(accepted, 0);
      if (first.status !== 'appended') throw new Error('seed ACTION_ACCEPTED lost');
      const validated: JournalEvent = {
        ...base,
        type: EventType.PREFLIGHT_VALIDATED,
        n: 2,
        data: { binding, request_fingerprint: `sha256:${randomBytes(32).toString('hex')}` },
      };
      const second = await journal.append(validated, first.seq);
      if (second.status !== 'appended') throw new Error('seed PREFLIGHT_VALIDATED lost');
      return id;
    },
    events: (id) => journal.read(id),
    waitFor,
    close: async (removeHome = false) => {
      await svc.close();
      if (removeHome) await rm(home, { recursive: true, force: true });
    },
  };
}

/** The forms a leaked secret could take. */
export function leakForms(secret: string): string[] {
  const b = Buffer.from(secret, 'utf8');
  return [secret, b.toString('base64'), b.toString('base64url'), b.toString('hex'), b.toString('hex').toUpperCase(), encodeURIComponent(secret)];
}
