import { Controller, Get, Header, Inject } from '@nestjs/common';
import { LATENCY_BUCKETS_SECONDS, renderMetrics } from './metrics.js';
import { readCheckpoint } from './projection-store.js';
import { READ_MODEL } from './projector.constants.js';
import { countAnomalies, countsByPhaseOutcomeCode, stageLatency } from './read-queries.js';
import type { ReadModel } from './read-model.js';

@Controller()
export class MetricsController {
  constructor(@Inject(READ_MODEL) private readonly model: ReadModel) {}

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async metrics(): Promise<string> {
    const snapshot = await this.model.use(async (em) => ({
      invocations: await countsByPhaseOutcomeCode(em),
      lastSeq: await readCheckpoint(em),
      anomalies: await countAnomalies(em),
      latency: await stageLatency(em, LATENCY_BUCKETS_SECONDS),
    }));
    return renderMetrics(snapshot);
  }
}
