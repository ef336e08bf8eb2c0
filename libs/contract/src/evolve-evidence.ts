import { isCount, isObject } from './evolve-data.js';
import type { EventData } from './evolve-refusal.js';
import type { EvidenceState } from './invocation-state.js';

const EVIDENCE_STRINGS = ['response_digest', 'result_object', 'remote_request_id', 'hop', 'exit_signal'] as const;
const EVIDENCE_BOOLEANS = [
  'request_headers_sent',
  'request_complete',
  'response_headers_received',
  'response_complete',
  'exec_accepted',
  'stdout_complete',
  'stderr_complete',
  'intervention_required',
] as const;
const FRAMINGS = ['content-length', 'chunked', 'close'];

/** Copies the known evidence fields of an event's data; anything else (diagnostics) stays in the journal. */
export function mergeEvidence(ev: EvidenceState, d: EventData): void {
  for (const key of EVIDENCE_STRINGS) if (typeof d[key] === 'string') ev[key] = d[key];
  for (const key of EVIDENCE_BOOLEANS) if (typeof d[key] === 'boolean') ev[key] = d[key];
  if (isCount(d['response_status'])) ev.response_status = d['response_status'];
  if (typeof d['exit_status'] === 'number' && Number.isInteger(d['exit_status'])) ev.exit_status = d['exit_status'];
  if (typeof d['framing'] === 'string' && FRAMINGS.includes(d['framing'])) ev.framing = d['framing'] as EvidenceState['framing'];
  if (Array.isArray(d['proxy_status'])) ev.proxy_status = d['proxy_status'];
  const ao = d['async_operation'];
  if (isObject(ao) && typeof ao['status_url'] === 'string') {
    ev.async_operation = typeof ao['job_id'] === 'string' ? { status_url: ao['status_url'], job_id: ao['job_id'] } : { status_url: ao['status_url'] };
  }
  if (d['recovered'] === true) ev.recovered = true;
}
