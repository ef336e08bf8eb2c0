import 'reflect-metadata';
import { rm } from 'node:fs/promises';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import type { EventType, StoredEvent } from '@postern/contract';
import type { Journal, JournalResources } from '@postern/journal';
import { silentLog, type ServiceConfig, type ServiceLog } from '@postern/service';
import { makeTempHome, startInProcessService } from '@postern/service/testing';
import { DELIVERY_PREFIX, DELIVERY_SUBJECTS, deliveryQueue, type DeliveryTuning } from './delivery.constants.js';
import { DeliveryModule } from './delivery.module.js';

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

export async function startDelivery(
  natsUrl: string,
  policyYaml: string,
  opts: { log?: ServiceLog; tuning?: Partial<DeliveryTuning> } = {},
): Promise<DeliveryHarness> {
  const { home, configPath } = await makeTempHome('delivery', policyYaml);
  const config: ServiceConfig = { servers: [natsUrl], prefix: DELIVERY_PREFIX, home, configPath };
  const clock = { offsetMs: 0 };
  const svc = await startInProcessService(
    DeliveryModule.register(config, {
      log: opts.log ?? silentLog,
      now: () => Date.now() + clock.offsetMs,
      ...(opts.tuning !== undefined ? { tuning: opts.tuning } : {}),
    }),
    { service: 'delivery', natsUrl, prefix: DELIVERY_PREFIX, queue: deliveryQueue(config.prefix), writer: 'test-writer' },
  );
  const { app, client, res, journal, requestRaw } = svc;
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
      await svc.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
