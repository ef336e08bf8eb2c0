import { Inject, Injectable } from '@nestjs/common';
import { Code, requestError, type ErrorReply } from '@postern/contract';
import { RESULT_PART_BYTES, type ResultStreamMeta, type ResultStreamName } from '@postern/journal';
import type { ServiceLog } from '@postern/service';
import { DELIVERY_LOG } from './delivery.constants.js';
import { readInvocationRequest } from './delivery-request.js';
import { ResultHandOver } from './result-hand-over.js';
import { ResultReader } from './result-reader.js';
import { resultView, streamServable, type InlineStreams, type ResultView } from './result-view.js';

/** `P.v1.results.fetch`: a read; it never executes anything. */
@Injectable()
export class FetchResult {
  constructor(
    private readonly reader: ResultReader,
    private readonly handOver: ResultHandOver,
    @Inject(DELIVERY_LOG) private readonly log: ServiceLog,
  ) {}

  async run(input: unknown): Promise<ResultView | ErrorReply> {
    const request = readInvocationRequest(input);
    if (!request.ok) {
      this.log.info('fetch.refused', { code: Code.BAD_REQUEST });
      return requestError(Code.BAD_REQUEST, 'The request must be a JSON object with a string invocation_id.', request.field);
    }
    const loaded = await this.reader.committed(request.value);
    if (!loaded.ok) return loaded.reply;
    const result = loaded.value;
    const meta = result.meta;
    // Small streams travel inline; larger ones are read part by part.
    const inlined: InlineStreams = {};
    const streams = Object.entries(meta.streams) as [ResultStreamName, ResultStreamMeta | undefined][];
    for (const [name, info] of streams) {
      if (info === undefined || info.bytes > RESULT_PART_BYTES || !streamServable(meta, name)) continue;
      const bytes = await this.reader.stream(result, name, info);
      if (!bytes.ok) return bytes.reply;
      inlined[name] = bytes.value;
    }
    const view = resultView({
      invocationId: request.value,
      outcome: result.view.outcome,
      resultDigest: result.resultDigest,
      meta,
      inlined,
    });
    return this.handOver.reply({ invocationId: request.value, resultDigest: result.resultDigest, outcome: result.view.outcome }, view);
  }
}
