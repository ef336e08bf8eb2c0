import { subjects } from '@postern/contract';
import { readPrefix } from '@postern/service';

/** Injection tokens of the intake module. */
export const INTAKE_CONFIG = Symbol('INTAKE_CONFIG');
export const INTAKE_RESOURCES = Symbol('INTAKE_RESOURCES');
export const INTAKE_JOURNAL = Symbol('INTAKE_JOURNAL');
export const INTAKE_POLICY = Symbol('INTAKE_POLICY');
export const INTAKE_LOG = Symbol('INTAKE_LOG');

/**
 * The subject prefix, read once when this module is first imported. Handler
 * subjects are fixed by decorators at class definition, so they cannot wait
 * for the module's configuration; `IntakeModule.register` refuses a config
 * whose prefix differs, so the two can never drift apart.
 */
export const INTAKE_PREFIX = readPrefix(process.env);
export const INTAKE_SUBJECTS = subjects(INTAKE_PREFIX);

export function intakeQueue(prefix: string): string {
  return `${prefix}_intake`;
}
