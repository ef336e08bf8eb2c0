import type { PolicyError } from './policy-error.js';

/**
 * A policy file that cannot be used: unreadable, not YAML, or not the schema.
 * The message lists every defect so that an operator fixes them in one pass.
 */
export class PolicyFileError extends Error {
  override readonly name = 'PolicyFileError';
  readonly file: string;
  readonly errors: PolicyError[];

  constructor(file: string, errors: PolicyError[], options?: { cause?: unknown }) {
    const lines = errors.map((e) => `  ${e.path}: ${e.reason}`);
    super(`policy file ${file} is not usable:\n${lines.join('\n')}`, options);
    this.file = file;
    this.errors = errors;
  }
}
