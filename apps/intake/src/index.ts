export { IntakeModule } from './intake.module.js';
export type { IntakeModuleOptions } from './intake.module.js';
export { IntakeController } from './intake.controller.js';
export {
  INTAKE_CONFIG,
  INTAKE_JOURNAL,
  INTAKE_LOG,
  INTAKE_POLICY,
  INTAKE_PREFIX,
  INTAKE_RESOURCES,
  INTAKE_SUBJECTS,
  intakeQueue,
} from './intake.constants.js';
export { SubmitAction } from './submit-action.js';
export { GetAction } from './get-action.js';
export { CancelAction, cancelDraft, phaseReached } from './cancel-action.js';
export { RecordReader, viewOf } from './record-reader.js';
export { planPreflight, targetAddress, idempotencyFingerprint, idempotencyClaimKey } from './preflight-plan.js';
export type { PreflightPlan, PreflightInput } from './preflight-plan.js';
export { acceptedCommand, REDACTED } from './accepted-command.js';
export type { PayloadRef } from './accepted-command.js';
export { IntakeBusyError, IntakeConfigError } from './errors.js';
