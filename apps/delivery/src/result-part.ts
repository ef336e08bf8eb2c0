import { Inject, Injectable } from '@nestjs/common';
import { Code, requestError, type ErrorReply } from '@postern/contract';
import { resultPart, type ResultStreamMeta } from '@postern/journal';
import type { ServiceLog } from '@postern/service';
import { DELIVERY_LOG } from './delivery.constants.js';
import { readPartRequest } from './delivery-request.js';
import { ResultHandOver } from './result-hand-over.js';
import { ResultReader } from './result-reader.js';
import { partView, streamServable, type ResultPartView } from './result-view.js';

/** `P.v1.results.part`: one 256 KiB slice of a committed stream, numbered from 1. A read. */
@Injectable()
export class ResultPartAction {
  constructor(
    private readonly reader: ResultReader,
    private readonly handOver: ResultHandOver,
    @Inject(DELIVERY_LOG) private readonly log: ServiceLog,
  ) {}

  async run(input: unknown): Promise<ResultPartView | ErrorReply> {
    const request = readPartRequest(input);
    if (!request.ok) {
      this.log.info('part.refused', { code: Code.BAD_REQUEST });
      return requestError(
        Code.BAD_REQUEST,
        'The request must be a JSON object with a string invocation_id, a stream (body, stdout or stderr) and an integer seq.',
        request.field,
      );
    }
    const { invocationId, stream, seq } = request.value;
    const loaded = await this.reader.committed(invocationId);
    if (!loaded.ok) return loaded.reply;
    const result = loaded.value;
    const meta = result.meta;
    const info = (meta.streams as Partial<Record<string, ResultStreamMeta>>)[stream];
    // A partial body or output is not handed out, not even in parts.
    if (info === undefined || !streamServable(meta, stream)) {
      return requestError(Code.NOT_FOUND, 'The result has no such stream.', 'stream', {
        outcome: result.view.outcome,
      });
    }
    const bytes = await this.reader.stream(result, stream, info);
    if (!bytes.ok) return bytes.reply;
    const part = resultPart(bytes.value, seq);
    if (part === null) {
      return requestError(Code.NOT_FOUND, 'No part with this seq: parts are numbered from 1 to the stream\'s part count.', 'seq', {
        outcome: result.view.outcome,
      });
    }
    return this.handOver.reply(
      { invocationId, resultDigest: result.resultDigest, outcome: result.view.outcome },
      partView(invocationId, stream, seq, part),
    );
  }
}
