import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import type { RecordView } from '@postern/contract';
import { badRequest, notFound } from './error-replies.js';
import { parseInvocationFilter, parsePage } from './list-query.js';
import { READ_MODEL } from './projector.constants.js';
import {
  getInvocation,
  invocationExists,
  listAnomalies,
  listEvents,
  listInvocations,
  statsByPhaseOutcome,
  type AnomalyView,
  type PhaseOutcomeCount,
} from './read-queries.js';
import type { ReadModel } from './read-model.js';

/** The read API of CONTRACT.md section 10. Records are computed when read: `retry` depends on the clock. */
@Controller('v1')
export class ReadApiController {
  constructor(@Inject(READ_MODEL) private readonly model: ReadModel) {}

  @Get('invocations')
  async list(@Query() query: Record<string, unknown>): Promise<{ invocations: RecordView[] }> {
    const filter = parseInvocationFilter(query);
    if (!filter.ok) throw badRequest(filter.defect);
    const now = Date.now();
    return { invocations: await this.model.use((em) => listInvocations(em, filter.value, now)) };
  }

  @Get('invocations/:id')
  async one(@Param('id') id: string): Promise<RecordView> {
    const now = Date.now();
    const record = await this.model.use((em) => getInvocation(em, id, now));
    if (!record) throw notFound();
    return record;
  }

  @Get('invocations/:id/events')
  async events(@Param('id') id: string): Promise<{ events: Record<string, unknown>[] }> {
    const found = await this.model.use(async (em) =>
      (await invocationExists(em, id)) ? await listEvents(em, id) : null,
    );
    if (!found) throw notFound();
    return { events: found };
  }

  @Get('stats')
  async stats(): Promise<{ by_phase_outcome: PhaseOutcomeCount[] }> {
    return { by_phase_outcome: await this.model.use((em) => statsByPhaseOutcome(em)) };
  }

  @Get('anomalies')
  async anomalies(@Query() query: Record<string, unknown>): Promise<{ anomalies: AnomalyView[] }> {
    const page = parsePage(query);
    if (!page.ok) throw badRequest(page.defect);
    return { anomalies: await this.model.use((em) => listAnomalies(em, page.value)) };
  }
}
