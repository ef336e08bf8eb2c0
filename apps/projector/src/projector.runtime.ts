import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { NATS_CONNECTION, PROJECTOR, READ_MODEL } from './projector.constants.js';
import type { Projector } from './projector.js';
import type { ReadModel } from './read-model.js';
import { ReplayHandler } from './replay.handler.js';

/** Starts the live projection and the replay handler, and takes them down in order. */
@Injectable()
export class ProjectorRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(PROJECTOR) private readonly projector: Projector,
    @Inject(ReplayHandler) private readonly replay: ReplayHandler,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(READ_MODEL) private readonly model: ReadModel,
  ) {}

  onApplicationBootstrap(): void {
    this.projector.start();
    this.replay.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.replay.close();
    await this.projector.stop();
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => undefined);
    await this.model.close();
  }
}
