import { LockMode, type EntityManager } from '@mikro-orm/core';
import { decodeJournalMessage, type RawJournalMessage } from './event-decoder.js';
import { malformedStep, projectEvent, type ProjectionStep } from './projection.js';
import {
  AnomalyEntity,
  CHECKPOINT_ID,
  CheckpointEntity,
  EventEntity,
  InvocationEntity,
  type InvocationRow,
} from './read-model.entities.js';

export interface BatchResult {
  applied: number;
  anomalies: number;
  skipped: number;
  /** The checkpoint after the batch. */
  lastSeq: number;
}

export interface ApplyOptions {
  /** Take a row lock on the checkpoint (PostgreSQL), so two projectors on one database cannot interleave. */
  lockCheckpoint?: boolean;
  now?: () => Date;
}

/** The sequence of the last message the read model has taken in (0 for an empty one). */
export async function readCheckpoint(em: EntityManager): Promise<number> {
  const row = await em.findOne(CheckpointEntity, { id: CHECKPOINT_ID });
  return row?.last_seq ?? 0;
}

/**
 * Applies journal messages in stream order in ONE transaction with the
 * checkpoint: either all of them and the checkpoint land, or none. A message
 * at or below the checkpoint is skipped, so a restart or a redelivery never
 * applies anything twice.
 */
export async function applyBatch(
  em: EntityManager,
  messages: readonly RawJournalMessage[],
  opts: ApplyOptions = {},
): Promise<BatchResult> {
  const now = opts.now ?? (() => new Date());
  return em.transactional(async (tx) => {
    const checkpoint = await tx.findOne(
      CheckpointEntity,
      { id: CHECKPOINT_ID },
      opts.lockCheckpoint ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
    );
    let lastSeq = checkpoint?.last_seq ?? 0;
    const result: BatchResult = { applied: 0, anomalies: 0, skipped: 0, lastSeq };
    const rows = new Map<string, InvocationRow | null>();
    for (const msg of messages) {
      if (msg.seq <= lastSeq) {
        result.skipped += 1;
        continue;
      }
      const decoded = decodeJournalMessage(msg);
      let step: ProjectionStep;
      if (decoded.ok) {
        const id = decoded.event.invocation_id;
        if (!rows.has(id)) rows.set(id, await tx.findOne(InvocationEntity, { invocation_id: id }));
        step = projectEvent(rows.get(id) ?? null, decoded.event, decoded.body);
      } else {
        step = malformedStep(decoded.malformed);
      }
      if (step.kind === 'applied') {
        const existing = rows.get(step.invocation.invocation_id);
        if (existing) {
          tx.assign(existing, step.invocation);
        } else {
          rows.set(step.invocation.invocation_id, tx.create(InvocationEntity, step.invocation));
        }
        tx.create(EventEntity, step.event);
        result.applied += 1;
      } else {
        tx.create(AnomalyEntity, { ...step.anomaly, observed_at: now().toISOString() });
        result.anomalies += 1;
      }
      lastSeq = msg.seq;
    }
    if (checkpoint) {
      checkpoint.last_seq = lastSeq;
    } else if (lastSeq > 0) {
      tx.create(CheckpointEntity, { id: CHECKPOINT_ID, last_seq: lastSeq });
    }
    result.lastSeq = lastSeq;
    return result;
  });
}
