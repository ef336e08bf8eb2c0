import type { DynamicModule, INestMicroservice, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions, type NatsOptions } from '@nestjs/microservices';
import type { ServiceLog } from './json-log.js';
import { PlainJsonDeserializer } from './plain-json.deserializer.js';
import { PlainJsonSerializer } from './plain-json.serializer.js';
import { stopOnSignals } from './stop-on-signals.js';

type NatsTransportOptions = NonNullable<NatsOptions['options']>;

export interface CreateNatsMicroserviceOptions {
  /** Names the service in the serializer's error header. */
  service: string;
  servers: string[];
  /** Queue group: replicas share the request-reply subjects. */
  queue: string;
  /** More NATS transport options (connection name, reconnects, graceful shutdown). */
  transport?: Omit<NatsTransportOptions, 'servers' | 'queue' | 'serializer' | 'deserializer'>;
  logger: LoggerService | LogLevel[] | false;
  abortOnError?: boolean;
}

/** A request-reply service over NATS speaking plain JSON both ways, not yet listening. */
export function createNatsMicroservice(module: DynamicModule, options: CreateNatsMicroserviceOptions): Promise<INestMicroservice> {
  return NestFactory.createMicroservice<MicroserviceOptions>(module, {
    transport: Transport.NATS,
    options: {
      servers: options.servers,
      queue: options.queue,
      serializer: new PlainJsonSerializer(options.service),
      deserializer: new PlainJsonDeserializer(),
      ...options.transport,
    },
    logger: options.logger,
    ...(options.abortOnError === undefined ? {} : { abortOnError: options.abortOnError }),
  });
}

export interface StartNatsMicroserviceOptions {
  /** `intake`, `credential`, `delivery`: names the connection, the log events and the error header. */
  service: string;
  /** How the error header names the service, when not by `service` alone. */
  serviceTitle?: string;
  servers: string[];
  prefix: string;
  queue: string;
  log: ServiceLog;
  /** Lets replies to open requests leave before the connection closes (NATS transport `gracePeriod`). */
  gracePeriodMs?: number;
  /** Runs on the first stop signal, before the app closes. */
  beforeClose?: (app: INestMicroservice) => void;
}

/**
 * Starts a request-reply service as its main.ts does: plain JSON over NATS in
 * a queue group, reconnecting forever, closed gracefully on SIGTERM/SIGINT.
 */
export async function startNatsMicroservice(module: DynamicModule, options: StartNatsMicroserviceOptions): Promise<INestMicroservice> {
  const { service, log, prefix, queue } = options;
  const app = await createNatsMicroservice(module, {
    service: options.serviceTitle ?? service,
    servers: options.servers,
    queue,
    transport: {
      name: `${prefix}-${service}-rpc`,
      maxReconnectAttempts: -1,
      ...(options.gracePeriodMs === undefined ? {} : { gracefulShutdown: true, gracePeriod: options.gracePeriodMs }),
    },
    // The service logs its own events as JSON lines; Nest only reports trouble.
    logger: ['error', 'warn'],
  });
  const beforeClose = options.beforeClose;
  stopOnSignals(app, { service, log, ...(beforeClose === undefined ? {} : { beforeClose: () => beforeClose(app) }) });
  await app.listen();
  log.info(`${service}.listening`, { prefix, queue });
  return app;
}
