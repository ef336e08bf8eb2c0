import { describe, expect, it } from 'vitest';
import { plannedRuns } from './test-runs.mjs';

describe('plannedRuns', () => {
  it('runs both suites without a filter, and only the matching one with a path filter', () => {
    expect(plannedRuns([]).map((run) => run.name)).toEqual(['workspace', 'infra']);
    expect(plannedRuns(['libs/contract']).map((run) => run.name)).toEqual(['workspace']);
    expect(plannedRuns(['./infra/scripts']).map((run) => run.name)).toEqual(['infra']);
    expect(plannedRuns(['--bail=1']).map((run) => run.name)).toEqual(['workspace', 'infra']);
  });
});
