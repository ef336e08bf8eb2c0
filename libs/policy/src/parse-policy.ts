import type { DispatchPolicy, Policy, ResultsPolicy, TargetPolicy } from '@postern/contract';
import { parseDocument } from 'yaml';
import { childPath, FieldReader, MAX_TIMER_MS } from './field-reader.js';
import { DEFAULT_DISPATCH, DEFAULT_RESULTS } from './policy-defaults.js';
import { FILE_PATH, ROOT_PATH, type PolicyParseResult } from './policy-error.js';
import { parseTarget } from './parse-target.js';
import type { TargetMatch } from './target-match.js';

const ROOT_KEYS = ['targets', 'dispatch', 'results'] as const;
const DISPATCH_KEYS: readonly (keyof DispatchPolicy)[] = ['connect_attempts', 'budget', 'auto_retry', 'lease_ms'];
const RESULTS_KEYS: readonly (keyof ResultsPolicy)[] = ['retention_s'];

/**
 * The policy file (CONTRACT.md section 8) to a `Policy` with every default
 * filled in, or every defect with the path of the field to fix. Pure: no
 * file access, so the same text always gives the same answer.
 */
export function parsePolicy(yamlText: string): PolicyParseResult {
  const doc = parseDocument(yamlText, { prettyErrors: true, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax !== undefined) {
    const position = syntax.linePos?.[0];
    const message = syntax.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? syntax.code;
    const where = position === undefined ? '' : `line ${position.line}, column ${position.col}: `;
    return { ok: false, errors: [{ path: FILE_PATH, reason: `${where}${message}` }] };
  }
  const root: unknown = doc.toJS({ maxAliasCount: 100 });
  const reader = new FieldReader();
  if (root === null || root === undefined) {
    return { ok: true, policy: { targets: [], dispatch: { ...DEFAULT_DISPATCH }, results: { ...DEFAULT_RESULTS } } };
  }
  if (!reader.isMapping(root)) {
    reader.fail(ROOT_PATH, 'must be a mapping with targets, dispatch and results');
    return { ok: false, errors: reader.errors };
  }
  reader.closed(root, '', ROOT_KEYS);

  const targets = readTargets(reader, root['targets']);
  const dispatchSection = reader.section(root, 'dispatch', 'dispatch');
  if (dispatchSection !== undefined) reader.closed(dispatchSection, 'dispatch', DISPATCH_KEYS);
  const dispatch: DispatchPolicy = {
    connect_attempts: reader.int(dispatchSection, 'connect_attempts', 'dispatch.connect_attempts', DEFAULT_DISPATCH.connect_attempts, { min: 1, max: 100 }),
    budget: reader.int(dispatchSection, 'budget', 'dispatch.budget', DEFAULT_DISPATCH.budget, { min: 1, max: 1000 }),
    auto_retry: reader.bool(dispatchSection, 'auto_retry', 'dispatch.auto_retry', DEFAULT_DISPATCH.auto_retry),
    lease_ms: reader.int(dispatchSection, 'lease_ms', 'dispatch.lease_ms', DEFAULT_DISPATCH.lease_ms, { min: 1, max: MAX_TIMER_MS }),
  };
  const resultsSection = reader.section(root, 'results', 'results');
  if (resultsSection !== undefined) reader.closed(resultsSection, 'results', RESULTS_KEYS);
  const results: ResultsPolicy = {
    retention_s: reader.int(resultsSection, 'retention_s', 'results.retention_s', DEFAULT_RESULTS.retention_s, { min: 1 }),
  };

  if (reader.errors.length > 0) return { ok: false, errors: reader.errors };
  return { ok: true, policy: { targets, dispatch, results } };
}

function readTargets(reader: FieldReader, value: unknown): TargetPolicy[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    reader.fail('targets', 'must be a list');
    return [];
  }
  const targets: TargetPolicy[] = [];
  const earlier: { match: TargetMatch; index: number }[] = [];
  value.forEach((item: unknown, index) => {
    const path = childPath('targets', index);
    const parsed = parseTarget(reader, item, path);
    if (parsed === undefined) return;
    targets.push(parsed.target);
    const match = parsed.match;
    if (match === undefined) return;
    // First match wins, so an entry that an earlier one fully covers is dead
    // configuration: its settings would never apply, which an operator must
    // hear about rather than discover.
    const cover = earlier.find((e) => e.match.scheme === match.scheme && e.match.host === match.host && (e.match.port === '*' || e.match.port === match.port));
    if (cover !== undefined) {
      reader.fail(childPath(path, 'match'), `is never used: targets[${cover.index}] matches everything it matches`);
    }
    earlier.push({ match, index });
  });
  return targets;
}
