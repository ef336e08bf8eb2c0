import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import type { DbKind } from './db-target.js';
import { readCheckpoint } from './projection-store.js';
import { READ_MODEL } from './projector.constants.js';
import { Public } from './public.decorator.js';
import type { ReadModel } from './read-model.js';

export interface Health {
  status: 'ok';
  last_seq: number;
  db: DbKind;
}

@Controller()
export class HealthController {
  constructor(@Inject(READ_MODEL) private readonly model: ReadModel) {}

  @Public()
  @Get('healthz')
  async health(): Promise<Health> {
    try {
      const lastSeq = await this.model.use((em) => readCheckpoint(em));
      return { status: 'ok', last_seq: lastSeq, db: this.model.kind };
    } catch {
      throw new ServiceUnavailableException({ status: 'unavailable', db: this.model.kind });
    }
  }
}
