import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats, ensureJournal, type JournalResources } from '@postern/journal';
import { BearerGuard } from './bearer.guard.js';
import { dbTarget } from './db-target.js';
import { ErrorReplyFilter } from './error-reply.filter.js';
import { HealthController } from './health.controller.js';
import { JournalFeed } from './journal-feed.js';
import { MetricsController } from './metrics.controller.js';
import type { ProjectorConfig } from './projector-config.js';
import { JOURNAL_RESOURCES, NATS_CONNECTION, PROJECTOR, PROJECTOR_CONFIG, READ_MODEL } from './projector.constants.js';
import { Projector } from './projector.js';
import { ReadApiController } from './read-api.controller.js';
import { ReadModel } from './read-model.js';
import { ReplayHandler } from './replay.handler.js';
import { ProjectorRuntime } from './projector.runtime.js';

@Module({})
export class ProjectorModule {
  static forRoot(config: ProjectorConfig): DynamicModule {
    return {
      module: ProjectorModule,
      controllers: [ReadApiController, MetricsController, HealthController],
      providers: [
        { provide: PROJECTOR_CONFIG, useValue: config },
        {
          provide: READ_MODEL,
          useFactory: () => ReadModel.open(dbTarget(config.home, config.dbUrl)),
        },
        {
          provide: NATS_CONNECTION,
          useFactory: () => connectNats({ servers: config.natsUrl, name: `${config.prefix}-projector` }),
        },
        {
          provide: JOURNAL_RESOURCES,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => ensureJournal(nc, config.prefix),
        },
        {
          provide: PROJECTOR,
          inject: [READ_MODEL, JOURNAL_RESOURCES],
          useFactory: (model: ReadModel, res: JournalResources) =>
            new Projector(model, new JournalFeed(res), {
              error: (message, err) => console.error(`projector: ${message}:`, err instanceof Error ? err.message : err),
            }),
        },
        ReplayHandler,
        ProjectorRuntime,
        { provide: APP_GUARD, useClass: BearerGuard },
        { provide: APP_FILTER, useClass: ErrorReplyFilter },
      ],
    };
  }
}
