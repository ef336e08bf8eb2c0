import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { ErrorReply, RecordView } from '@postern/contract';
import { CancelAction } from './cancel-action.js';
import { GetAction } from './get-action.js';
import { INTAKE_SUBJECTS } from './intake.constants.js';
import { SubmitAction } from './submit-action.js';

type Reply = RecordView | ErrorReply;

/** Request-reply subjects of the intake; each hands the raw payload to its use case. */
@Controller()
export class IntakeController {
  constructor(
    private readonly submitAction: SubmitAction,
    private readonly getAction: GetAction,
    private readonly cancelAction: CancelAction,
  ) {}

  @MessagePattern(INTAKE_SUBJECTS.actionsSubmit)
  submit(@Payload() input: unknown): Promise<Reply> {
    return this.submitAction.run(input);
  }

  @MessagePattern(INTAKE_SUBJECTS.actionsGet)
  get(@Payload() input: unknown): Promise<Reply> {
    return this.getAction.run(input);
  }

  @MessagePattern(INTAKE_SUBJECTS.actionsCancel)
  cancel(@Payload() input: unknown): Promise<Reply> {
    return this.cancelAction.run(input);
  }
}
