import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { bindHost, type ProjectorConfig } from './projector-config.js';
import { PROJECTOR } from './projector.constants.js';
import type { Projector } from './projector.js';
import { ProjectorModule } from './projector.module.js';

export interface RunningProjector {
  app: INestApplication;
  projector: Projector;
  host: string;
  port: number;
  url: string;
  /** Stops the API, the replay handler and the live reader, then closes NATS and the database. */
  close(): Promise<void>;
}

/** Builds the projector, starts following the journal and listens for the read API. */
export async function startProjector(config: ProjectorConfig): Promise<RunningProjector> {
  const app = await NestFactory.create(ProjectorModule.forRoot(config), {
    logger: ['error', 'warn'],
    abortOnError: false,
  });
  const express = app.getHttpAdapter().getInstance() as { disable?: (setting: string) => void };
  express.disable?.('x-powered-by');
  const host = bindHost(config);
  try {
    await app.listen(config.httpPort, host);
  } catch (err) {
    await app.close();
    throw err;
  }
  const port = (app.getHttpServer().address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  return {
    app,
    projector: app.get<Projector>(PROJECTOR),
    host,
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close() {
      closing ??= app.close();
      return closing;
    },
  };
}
