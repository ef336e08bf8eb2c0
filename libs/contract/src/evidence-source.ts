/** Who established a piece of evidence (CONTRACT.md section 4, `evidence.source`). */
export const EvidenceSource = {
  transport_observed: 'transport_observed',
  remote_response: 'remote_response',
  remote_query: 'remote_query',
  operator_attested: 'operator_attested',
} as const;
export type EvidenceSource = (typeof EvidenceSource)[keyof typeof EvidenceSource];
export const EVIDENCE_SOURCES: readonly EvidenceSource[] = Object.values(EvidenceSource);
