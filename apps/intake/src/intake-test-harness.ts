import 'reflect-metadata';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { CredentialMeta, StoredEvent } from '@postern/contract';
import { encodeKvKey, ensureJournal, Journal, type JournalResources } from '@postern/journal';
import type { IntakeConfig } from './intake-config.js';
import { silentLog, type IntakeLog } from './intake-log.js';
import { INTAKE_PREFIX, INTAKE_SUBJECTS, intakeQueue } from './intake.constants.js';
import { IntakeModule } from './intake.module.js';
import { PlainJsonDeserializer } from './plain-json.deserializer.js';
import { PlainJsonSerializer } from './plain-json.serializer.js';

/**
 * Runs the intake in-process against a given nats-server, exactly as main.ts
 * wires it, and talks to it only as a producer would: a bare NATS client
 * sending plain JSON. Used by the integration tests; the server itself is
 * started by each test file.
 */
export interface IntakeHarness {
  app: INestMicroservice;
  /** A bare client: what a producer in any language would use. */
  client: NatsConnection;
  /** A second connection to inspect (and seed) the journal, buckets and stores. */
  res: JournalResources;
  journal: Journal;
  subjects: typeof INTAKE_SUBJECTS;
  home: string;
  /** Sends raw text (not re-encoded) and parses the raw reply. */
  requestRaw(subject: string, body: string | Uint8Array): Promise<unknown>;
  request(subject: string, body: unknown): Promise<any>;
  submit(command: unknown): Promise<any>;
  events(invocationId: string): Promise<StoredEvent[]>;
  streamMessages(): Promise<number>;
  putCredential(meta: CredentialMeta): Promise<void>;
  close(): Promise<void>;
}

const REQUEST_TIMEOUT_MS = 10_000;

export async function startIntake(natsUrl: string, policyYaml: string, log: IntakeLog = silentLog): Promise<IntakeHarness> {
  const home = await mkdtemp(join(tmpdir(), 'postern-intake-'));
  const configPath = join(home, 'postern.yaml');
  await writeFile(configPath, policyYaml, 'utf8');
  const config: IntakeConfig = { servers: [natsUrl], prefix: INTAKE_PREFIX, home, configPath };
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(
    IntakeModule.register(config, { log }),
    {
      transport: Transport.NATS,
      options: {
        servers: config.servers,
        queue: intakeQueue(config.prefix),
        serializer: new PlainJsonSerializer(),
        deserializer: new PlainJsonDeserializer(),
      },
      logger: false,
      abortOnError: false,
    },
  );
  await app.listen();
  const client = await connect({ servers: natsUrl });
  const inspector = await connect({ servers: natsUrl });
  const res = await ensureJournal(inspector, INTAKE_PREFIX);
  const journal = new Journal(res, INTAKE_PREFIX, 'test-inspector');
  const decoder = new TextDecoder();

  const requestRaw = async (subject: string, body: string | Uint8Array): Promise<unknown> => {
    const reply = await client.request(subject, body, { timeout: REQUEST_TIMEOUT_MS });
    return JSON.parse(decoder.decode(reply.data)) as unknown;
  };
  return {
    app,
    client,
    res,
    journal,
    subjects: INTAKE_SUBJECTS,
    home,
    requestRaw,
    request: (subject, body) => requestRaw(subject, JSON.stringify(body)),
    submit: (command) => requestRaw(INTAKE_SUBJECTS.actionsSubmit, JSON.stringify(command)),
    events: (id) => journal.read(id),
    streamMessages: async () => (await res.jsm.streams.info(res.names.stream)).state.messages,
    putCredential: async (meta) => {
      await res.kv.credentials.put(encodeKvKey(meta.id), JSON.stringify(meta));
    },
    close: async () => {
      await client.close();
      await app.close();
      await inspector.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** Every message of every stream on the server, headers and body, as one byte-faithful latin1 string per message. */
export async function allStreamBytes(res: JournalResources): Promise<string[]> {
  const out: string[] = [];
  const streams = await res.jsm.streams.names().next();
  for (const name of streams) {
    const info = await res.jsm.streams.info(name);
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq++) {
      const msg = await res.jsm.streams.getMessage(name, { seq }).catch(() => null);
      if (msg === null) continue;
      const headerText = msg.header === undefined ? '' : [...msg.header.keys()].map((k) => `${k}: ${msg.header.get(k)}`).join('\n');
      out.push(`${msg.subject}\n${headerText}\n${Buffer.from(msg.data).toString('latin1')}`);
    }
  }
  return out;
}
