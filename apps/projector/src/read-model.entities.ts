import { BigIntType, EntitySchema } from '@mikro-orm/core';

/*
 * The read model's tables. Everything here can be thrown away and rebuilt from
 * the journal, so the rows keep what queries filter on plus the folded state
 * as JSON text; the RecordView is computed from the state when it is read,
 * because `retry` depends on the clock.
 */

export interface InvocationRow {
  invocation_id: string;
  client_request_id: string;
  status: string;
  outcome: string;
  phase: string | null;
  code: string | null;
  first_seq: number;
  last_seq: number;
  events: number;
  /** The first event's `at`. */
  created_at: string;
  /** The last applied event's `at`. */
  updated_at: string;
  /** JSON text of the contract's InvocationState. */
  state: string;
}

export interface EventRow {
  seq: number;
  invocation_id: string;
  n: number;
  type: string;
  at: string;
  /** Milliseconds since the invocation's previous event, by their `at`; null for the first one. */
  latency_ms: number | null;
  /** JSON text of the event body as it was journaled. */
  body: string;
}

export interface AnomalyRow {
  seq: number;
  invocation_id: string;
  type: string;
  reason: string;
  message: string;
  /** The refused message's body: JSON text, or the raw text when it was not JSON. */
  body: string;
  observed_at: string;
}

export interface CheckpointRow {
  id: string;
  last_seq: number;
}

/** The one checkpoint row's id. */
export const CHECKPOINT_ID = 'projector';

// JetStream sequences are unsigned 64-bit; bigint columns read back as JS numbers,
// which stay exact up to 2^53.
const seqType = () => new BigIntType('number');

export const InvocationEntity = new EntitySchema<InvocationRow>({
  name: 'InvocationRow',
  tableName: 'invocations',
  properties: {
    invocation_id: { type: 'string', primary: true, length: 255 },
    client_request_id: { type: 'string', length: 255 },
    status: { type: 'string', length: 32 },
    outcome: { type: 'string', length: 32, index: true },
    phase: { type: 'string', length: 32, nullable: true, index: true },
    code: { type: 'string', length: 64, nullable: true, index: true },
    first_seq: { type: seqType() },
    last_seq: { type: seqType(), index: true },
    events: { type: 'integer' },
    created_at: { type: 'string', length: 64 },
    updated_at: { type: 'string', length: 64 },
    state: { type: 'text' },
  },
});

export const EventEntity = new EntitySchema<EventRow>({
  name: 'EventRow',
  tableName: 'events',
  properties: {
    seq: { type: seqType(), primary: true, autoincrement: false },
    invocation_id: { type: 'string', length: 255, index: true },
    n: { type: 'integer' },
    type: { type: 'string', length: 64 },
    at: { type: 'string', length: 64 },
    latency_ms: { type: 'double', nullable: true },
    body: { type: 'text' },
  },
});

export const AnomalyEntity = new EntitySchema<AnomalyRow>({
  name: 'AnomalyRow',
  tableName: 'anomalies',
  properties: {
    seq: { type: seqType(), primary: true, autoincrement: false },
    invocation_id: { type: 'string', length: 255, index: true },
    type: { type: 'string', length: 64 },
    reason: { type: 'string', length: 64 },
    message: { type: 'text' },
    body: { type: 'text' },
    observed_at: { type: 'string', length: 64 },
  },
});

export const CheckpointEntity = new EntitySchema<CheckpointRow>({
  name: 'CheckpointRow',
  tableName: 'checkpoint',
  properties: {
    id: { type: 'string', primary: true, length: 32 },
    last_seq: { type: seqType() },
  },
});

export const READ_MODEL_ENTITIES = [InvocationEntity, EventEntity, AnomalyEntity, CheckpointEntity];
