import { describe, expect, it } from 'vitest';
import { AnomalyReason, Code, EventType, Outcome, Phase, Status, type JournalEvent, type StoredEvent } from '@postern/contract';
import { fixtureId, InvocationScript } from './journal.fixture.js';
import { projectEvent, type ProjectionStep } from './projection.js';
import type { InvocationRow } from './read-model.entities.js';
import { parseReplayRequest } from './replay.handler.js';

function stored(e: JournalEvent, seq: number): StoredEvent {
  return { ...e, seq };
}

/** Folds a script's events from seq 100 on, as the projection store would. */
function fold(script: InvocationScript): { row: InvocationRow | null; steps: ProjectionStep[] } {
  let row: InvocationRow | null = null;
  const steps: ProjectionStep[] = [];
  script.events.forEach((e, i) => {
    const step = projectEvent(row, stored(e, 100 + i), JSON.stringify(e));
    steps.push(step);
    if (step.kind === 'applied') row = step.invocation;
  });
  return { row, steps };
}

describe('projectEvent', () => {
  describe('given no row yet', () => {
    it('ACTION_ACCEPTED creates a pending row at the validation phase', () => {
      const { row } = fold(new InvocationScript(fixtureId(1)).accepted('req-1'));
      expect(row).toMatchObject({
        invocation_id: fixtureId(1),
        client_request_id: 'req-1',
        status: Status.pending,
        outcome: Outcome.not_attempted,
        phase: Phase.validation,
        code: null,
        first_seq: 100,
        last_seq: 100,
        events: 1,
      });
    });

    it('any other first event is an anomaly', () => {
      const s = new InvocationScript(fixtureId(1));
      s.add(EventType.PREFLIGHT_VALIDATED, {});
      const { row, steps } = fold(s);
      expect(row).toBeNull();
      expect(steps[0]).toMatchObject({ kind: 'anomaly', anomaly: { reason: AnomalyReason.not_accepted_first, seq: 100 } });
    });
  });

  describe('given a committed invocation', () => {
    const committed = () => new InvocationScript(fixtureId(2)).accepted().validated().authorized().dispatched().completed(201);

    it('keeps the columns queries filter on and the latency since the previous event', () => {
      const { row, steps } = fold(committed());
      expect(row).toMatchObject({ status: Status.resolved, outcome: Outcome.committed, phase: Phase.remote_execution, code: null });
      const last = steps.at(-1)!;
      expect(last.kind === 'applied' && last.event.latency_ms).toBe(250);
      const first = steps[0]!;
      expect(first.kind === 'applied' && first.event.latency_ms).toBeNull();
    });

    it('a PREFLIGHT_REJECTED is refused as a regression and the row is not touched', () => {
      const script = committed();
      const { row } = fold(script);
      const before = JSON.stringify(row);
      const next = new InvocationScript(fixtureId(2));
      next.add(EventType.PREFLIGHT_REJECTED, { code: Code.MISSING_FIELD }, { n: script.events.length + 1 });
      const step = projectEvent(row, stored(next.events[0]!, 500), '{}');
      expect(step).toMatchObject({ kind: 'anomaly', anomaly: { reason: AnomalyReason.outcome_regression, seq: 500 } });
      expect(JSON.stringify(row)).toBe(before);
    });
  });

  describe('given a rejected preflight', () => {
    it('records phase and code of the error', () => {
      const { row } = fold(new InvocationScript(fixtureId(3)).accepted().rejected(Code.FORBIDDEN_HEADER));
      expect(row).toMatchObject({ status: Status.resolved, phase: Phase.validation, code: Code.FORBIDDEN_HEADER });
    });
  });
});

describe('parseReplayRequest', () => {
  const enc = (s: string) => new TextEncoder().encode(s);

  it('takes an empty body or {} as a plain replay', () => {
    expect(parseReplayRequest(enc(''))).toEqual({ ok: true, value: {} });
    expect(parseReplayRequest(enc('{}'))).toEqual({ ok: true, value: {} });
  });

  it('takes a plain progress subject', () => {
    expect(parseReplayRequest(enc('{"progress_subject":"ops.replay.1"}'))).toEqual({
      ok: true,
      value: { progress_subject: 'ops.replay.1' },
    });
  });

  it.each(['[]', 'nope', '{"progress_subject":"a.*"}', '{"progress_subject":"a..b"}', '{"progress_subject":5}'])(
    'refuses %s',
    (text) => {
      expect(parseReplayRequest(enc(text)).ok).toBe(false);
    },
  );
});
