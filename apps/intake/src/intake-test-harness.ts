import 'reflect-metadata';
import { rm } from 'node:fs/promises';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import type { CredentialMeta, StoredEvent } from '@postern/contract';
import { encodeKvKey, type Journal, type JournalResources } from '@postern/journal';
import { silentLog, type ServiceConfig, type ServiceLog } from '@postern/service';
import { makeTempHome, startInProcessService } from '@postern/service/testing';
import { INTAKE_PREFIX, INTAKE_SUBJECTS, intakeQueue } from './intake.constants.js';
import { IntakeModule } from './intake.module.js';

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

export async function startIntake(natsUrl: string, policyYaml: string, log: ServiceLog = silentLog): Promise<IntakeHarness> {
  const { home, configPath } = await makeTempHome('intake', policyYaml);
  const config: ServiceConfig = { servers: [natsUrl], prefix: INTAKE_PREFIX, home, configPath };
  const svc = await startInProcessService(IntakeModule.register(config, { log }), {
    service: 'intake',
    natsUrl,
    prefix: INTAKE_PREFIX,
    queue: intakeQueue(config.prefix),
    writer: 'test-inspector',
  });
  const { app, client, res, journal, requestRaw } = svc;
  return {
    app,
    client,
    res,
    journal,
    subjects: INTAKE_SUBJECTS,
    home,
    requestRaw: (subject, body) => requestRaw(subject, body),
    request: (subject, body) => requestRaw(subject, JSON.stringify(body)),
    submit: (command) => requestRaw(INTAKE_SUBJECTS.actionsSubmit, JSON.stringify(command)),
    events: (id) => journal.read(id),
    streamMessages: async () => (await res.jsm.streams.info(res.names.stream)).state.messages,
    putCredential: async (meta) => {
      await res.kv.credentials.put(encodeKvKey(meta.id), JSON.stringify(meta));
    },
    close: async () => {
      await svc.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
