import type { InvocationCount, LatencyHistogram } from './read-queries.js';

/** Bucket bounds of `postern_stage_latency_seconds`: from a local round trip to a slow remote. */
export const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300] as const;

export interface MetricsSnapshot {
  invocations: InvocationCount[];
  lastSeq: number;
  anomalies: number;
  latency: LatencyHistogram[];
}

function label(value: string | null): string {
  return (value ?? '').replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function num(v: number): string {
  return Number.isFinite(v) ? String(v) : '0';
}

/** Prometheus text exposition format 0.0.4. */
export function renderMetrics(m: MetricsSnapshot): string {
  const out: string[] = [];
  // A gauge although the name ends in _total: an invocation moves between label
  // sets as its outcome settles, so the per-series value can go down.
  out.push('# HELP postern_invocations_total Invocations in the read model by phase, outcome and code (empty: none).');
  out.push('# TYPE postern_invocations_total gauge');
  for (const c of m.invocations) {
    out.push(
      `postern_invocations_total{phase="${label(c.phase)}",outcome="${label(c.outcome)}",code="${label(c.code)}"} ${c.count}`,
    );
  }
  out.push('# HELP postern_projector_last_seq Stream sequence of the last journal message the read model has taken in.');
  out.push('# TYPE postern_projector_last_seq gauge');
  out.push(`postern_projector_last_seq ${m.lastSeq}`);
  out.push('# HELP postern_anomalies_total Journal messages the projection refused.');
  out.push('# TYPE postern_anomalies_total counter');
  out.push(`postern_anomalies_total ${m.anomalies}`);
  out.push(
    '# HELP postern_stage_latency_seconds Time from an invocation\'s previous event to this one, by event type (from the events\' "at").',
  );
  out.push('# TYPE postern_stage_latency_seconds histogram');
  for (const h of m.latency) {
    const type = label(h.type);
    LATENCY_BUCKETS_SECONDS.forEach((le, i) => {
      out.push(`postern_stage_latency_seconds_bucket{type="${type}",le="${le}"} ${h.buckets[i] ?? 0}`);
    });
    out.push(`postern_stage_latency_seconds_bucket{type="${type}",le="+Inf"} ${h.count}`);
    out.push(`postern_stage_latency_seconds_sum{type="${type}"} ${num(h.sumSeconds)}`);
    out.push(`postern_stage_latency_seconds_count{type="${type}"} ${h.count}`);
  }
  return out.join('\n') + '\n';
}
