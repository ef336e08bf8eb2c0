import 'reflect-metadata';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { EventType, StoredEvent } from '@postern/contract';
import { ensureJournal, Journal, type JournalResources } from '@postern/journal';
import type { DeliveryConfig } from './delivery-config.js';
import { silentLog, type DeliveryLog } from './delivery-log.js';
import { DELIVERY_PREFIX, DELIVERY_SUBJECTS, deliveryQueue, type DeliveryTuning } from './delivery.constants.js';
import { DeliveryModule } from './delivery.module.js';
import { PlainJsonDeserializer } from './plain-json.deserializer.js';
import { PlainJsonSerializer } from './plain-json.serializer.js';

/**
 * Runs the delivery service in-process against a given nats-server, wired as
 * main.ts wires it, and talks to it only as a producer would: a bare NATS
 * client sending plain JSON. A second connection plays the other services
 * (it appends events and stores results by hand).
 */
export interface DeliveryHarness {
  app: INestMicroservice;
  client: NatsConnection;
  res: JournalResources;
  /** Writes as the dispatcher and intake would. */
  journal: Journal;
  subjects: typeof DELIVERY_SUBJECTS;
  /** Added to the service's clock (ms): moves it past a retention without waiting. */
  clock: { offsetMs: number };
  request(subject: string, body: unknown, timeoutMs?: number): Promise<any>;
  requestRaw(subject: string, body: string | Uint8Array): Promise<any>;
  events(invocationId: string): Promise<StoredEvent[]>;
  /** Polls the journal (bounded) until an event of `type` past `n` appears; null if none in time. */
  waitForEvent(invocationId: string, type: EventType, afterN?: number, timeoutMs?: number): Promise<StoredEvent | null>;
  close(): Promise<void>;
}

const REQUEST_TIMEOUT_MS = 10_000;

export async function startDelivery(
  natsUrl: string,
  policyYaml: string,
  opts: { log?: DeliveryLog; tuning?: Partial<DeliveryTuning> } = {},
): Promise<DeliveryHarness> {
  const home = await mkdtemp(join(tmpdir(), 'postern-delivery-'));
  const configPath = join(home, 'postern.yaml');
  await writeFile(configPath, policyYaml, 'utf8');
  const config: DeliveryConfig = { servers: [natsUrl], prefix: DELIVERY_PREFIX, home, configPath };
  const clock = { offsetMs: 0 };
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(
    DeliveryModule.register(config, {
      log: opts.log ?? silentLog,
      now: () => Date.now() + clock.offsetMs,
      ...(opts.tuning !== undefined ? { tuning: opts.tuning } : {}),
    }),
    {
      transport: Transport.NATS,
      options: {
        servers: config.servers,
        queue: deliveryQueue(config.prefix),
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
  const res = await ensureJournal(inspector, DELIVERY_PREFIX);
  const journal = new Journal(res, DELIVERY_PREFIX, 'test-writer');
  const decoder = new TextDecoder();

  const requestRaw = async (subject: string, body: string | Uint8Array, timeoutMs = REQUEST_TIMEOUT_MS): Promise<any> => {
    const reply = await client.request(subject, body, { timeout: timeoutMs });
    return JSON.parse(decoder.decode(reply.data)) as unknown;
  };
  return {
    app,
    client,
    res,
    journal,
    subjects: DELIVERY_SUBJECTS,
    clock,
    request: (subject, body, timeoutMs) => requestRaw(subject, JSON.stringify(body), timeoutMs),
    requestRaw: (subject, body) => requestRaw(subject, body),
    events: (id) => journal.read(id),
    waitForEvent: async (id, type, afterN = 0, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (let i = 0; i < 1_000 && Date.now() < deadline; i++) {
        const found = (await journal.read(id)).find((e) => e.type === type && e.n > afterN);
        if (found !== undefined) return found;
        await new Promise((r) => setTimeout(r, 50));
      }
      return null;
    },
    close: async () => {
      await client.close();
      await app.close();
      await inspector.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
