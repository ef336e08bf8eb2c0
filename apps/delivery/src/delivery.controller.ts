import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { ErrorReply, RecordView } from '@postern/contract';
import { AckResult } from './ack-result.js';
import { AwaitAction } from './await-action.js';
import { DELIVERY_SUBJECTS } from './delivery.constants.js';
import { FetchResult } from './fetch-result.js';
import { ResultPartAction } from './result-part.js';
import type { ResultPartView, ResultView } from './result-view.js';

/** Request-reply subjects of the delivery service; each hands the raw payload to its use case. */
@Controller()
export class DeliveryController {
  constructor(
    private readonly awaitAction: AwaitAction,
    private readonly fetchResult: FetchResult,
    private readonly resultPart: ResultPartAction,
    private readonly ackResult: AckResult,
  ) {}

  @MessagePattern(DELIVERY_SUBJECTS.actionsAwait)
  await(@Payload() input: unknown): Promise<RecordView | ErrorReply> {
    return this.awaitAction.run(input);
  }

  @MessagePattern(DELIVERY_SUBJECTS.resultsFetch)
  fetch(@Payload() input: unknown): Promise<ResultView | ErrorReply> {
    return this.fetchResult.run(input);
  }

  @MessagePattern(DELIVERY_SUBJECTS.resultsPart)
  part(@Payload() input: unknown): Promise<ResultPartView | ErrorReply> {
    return this.resultPart.run(input);
  }

  @MessagePattern(DELIVERY_SUBJECTS.resultsAck)
  ack(@Payload() input: unknown): Promise<RecordView | ErrorReply> {
    return this.ackResult.run(input);
  }
}
