import { describe, expect, it } from 'vitest';
import { Code, Outcome, Phase } from '@postern/contract';
import { LATENCY_BUCKETS_SECONDS, renderMetrics } from './metrics.js';

describe('renderMetrics', () => {
  const text = renderMetrics({
    invocations: [
      { phase: Phase.validation, outcome: Outcome.not_attempted, code: Code.MISSING_FIELD, count: 2 },
      { phase: null, outcome: Outcome.committed, code: null, count: 1 },
    ],
    lastSeq: 42,
    anomalies: 3,
    latency: [
      { type: 'PREFLIGHT_VALIDATED', buckets: LATENCY_BUCKETS_SECONDS.map((_, i) => (i < 2 ? 1 : 2)), count: 2, sumSeconds: 0.5 },
    ],
  });

  it('counts invocations by phase, outcome and code, empty for none', () => {
    expect(text).toContain('postern_invocations_total{phase="validation",outcome="not_attempted",code="MISSING_FIELD"} 2\n');
    expect(text).toContain('postern_invocations_total{phase="",outcome="committed",code=""} 1\n');
  });

  it('reports the checkpoint and the anomalies', () => {
    expect(text).toContain('postern_projector_last_seq 42\n');
    expect(text).toContain('postern_anomalies_total 3\n');
  });

  it('writes a cumulative histogram ending in +Inf, sum and count', () => {
    expect(text).toContain('# TYPE postern_stage_latency_seconds histogram');
    expect(text).toContain('postern_stage_latency_seconds_bucket{type="PREFLIGHT_VALIDATED",le="0.005"} 1\n');
    expect(text).toContain('postern_stage_latency_seconds_bucket{type="PREFLIGHT_VALIDATED",le="+Inf"} 2\n');
    expect(text).toContain('postern_stage_latency_seconds_sum{type="PREFLIGHT_VALIDATED"} 0.5\n');
    expect(text).toContain('postern_stage_latency_seconds_count{type="PREFLIGHT_VALIDATED"} 2\n');
  });
});
