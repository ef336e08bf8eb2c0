import type { Policy } from '@postern/contract';

/**
 * One defect of a policy file. `path` names the field the operator must fix
 * (`targets[2].timeouts_ms.connect`, `dispatch.budget`); `(file)` is the file
 * as a whole (unreadable, or not YAML) and `(root)` its top-level value.
 */
export interface PolicyError {
  path: string;
  reason: string;
}

export type PolicyParseResult = { ok: true; policy: Policy } | { ok: false; errors: PolicyError[] };

/** Paths for defects that belong to no field. */
export const FILE_PATH = '(file)';
export const ROOT_PATH = '(root)';
