import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureJournal, Journal, type JournalResources } from '@postern/journal';
import { createNatsMicroservice } from '../nats-microservice.js';

export interface InProcessServiceOptions {
  /** Names the service in the serializer's error header. */
  service: string;
  /** A test's own nats-server, never the shared one. */
  natsUrl: string;
  prefix: string;
  queue: string;
  /** Writer name of the inspecting journal. */
  writer: string;
  /** Bound on every request (default 10 s). */
  requestTimeoutMs?: number;
}

/**
 * For tests: a request-reply service run in-process with the plain JSON wire
 * of its main.ts, plus what a test talks to it with: a bare client (what a
 * producer in any language would use) and a second connection that inspects
 * and seeds the journal, buckets and stores.
 */
export interface InProcessService {
  app: INestMicroservice;
  client: NatsConnection;
  res: JournalResources;
  journal: Journal;
  /** Sends the body as given (not re-encoded) and parses the raw reply. */
  requestRaw(subject: string, body: string | Uint8Array, timeoutMs?: number): Promise<any>;
  /** Closes the client, the service, then the inspecting connection. */
  close(): Promise<void>;
}

const REQUEST_TIMEOUT_MS = 10_000;

export async function startInProcessService(module: DynamicModule, options: InProcessServiceOptions): Promise<InProcessService> {
  const app = await createNatsMicroservice(module, {
    service: options.service,
    servers: [options.natsUrl],
    queue: options.queue,
    logger: false,
    abortOnError: false,
  });
  await app.listen();
  const client = await connect({ servers: options.natsUrl });
  const inspector = await connect({ servers: options.natsUrl });
  const res = await ensureJournal(inspector, options.prefix);
  const journal = new Journal(res, options.prefix, options.writer);
  const decoder = new TextDecoder();
  const defaultTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  return {
    app,
    client,
    res,
    journal,
    requestRaw: async (subject, body, timeoutMs = defaultTimeout) => {
      const reply = await client.request(subject, body, { timeout: timeoutMs });
      return JSON.parse(decoder.decode(reply.data)) as unknown;
    },
    close: async () => {
      await client.close();
      await app.close();
      await inspector.close();
    },
  };
}
