import { Inject, Injectable } from '@nestjs/common';
import { Code, requestError, type ErrorReply, type RecordView } from '@postern/contract';
import type { ServiceLog } from '@postern/service';
import { INTAKE_LOG } from './intake.constants.js';
import { readInvocationRequest } from './invocation-request.js';
import { RecordReader } from './record-reader.js';

/** `P.v1.actions.get`: a read; it never changes the invocation. */
@Injectable()
export class GetAction {
  constructor(
    private readonly reader: RecordReader,
    @Inject(INTAKE_LOG) private readonly log: ServiceLog,
  ) {}

  async run(input: unknown): Promise<RecordView | ErrorReply> {
    const request = readInvocationRequest(input);
    if (request.kind === 'bad_request') {
      this.log.info('get.refused', { code: Code.BAD_REQUEST });
      return requestError(Code.BAD_REQUEST, 'The request must be a JSON object with a string invocation_id.', request.field);
    }
    const view = await this.reader.view(request.invocationId);
    return view ?? requestError(Code.NOT_FOUND);
  }
}
