import { describe, expect, it } from 'vitest';
import { AnomalyReason, EventType } from '@postern/contract';
import { decodeJournalMessage, invocationIdOfSubject } from './event-decoder.js';

const enc = new TextEncoder();
const subject = 'postern.v1.evt.act_1';

function msg(body: unknown, seq = 7, subj = subject) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { seq, subject: subj, data: enc.encode(text) };
}

const valid = {
  type: EventType.ACTION_ACCEPTED,
  invocation_id: 'act_1',
  n: 1,
  attempt: 0,
  generation: 0,
  at: '2026-11-29T18:00:00.000Z',
  source: 'transport_observed',
  service: 'intake',
  data: { client_request_id: 'r1' },
};

describe('decodeJournalMessage', () => {
  it('reads a whole envelope as a StoredEvent with the stream sequence', () => {
    const d = decodeJournalMessage(msg(valid));
    expect(d.ok).toBe(true);
    if (d.ok) {
      expect(d.event.seq).toBe(7);
      expect(d.event.type).toBe(EventType.ACTION_ACCEPTED);
      expect(JSON.parse(d.body)).toEqual(valid);
    }
  });

  it('turns a body that is not JSON into a malformed event keeping the raw text', () => {
    const d = decodeJournalMessage(msg('{nope'));
    expect(d.ok).toBe(false);
    if (!d.ok) {
      expect(d.malformed.reason).toBe(AnomalyReason.malformed);
      expect(d.malformed.body).toBe('{nope');
      expect(d.malformed.invocation_id).toBe('act_1');
    }
  });

  it.each([
    ['an array', []],
    ['an unknown type', { ...valid, type: 'NOT_A_TYPE' }],
    ['n = 0', { ...valid, n: 0 }],
    ['n not an integer', { ...valid, n: 1.5 }],
    ['no data', { ...valid, data: undefined }],
    ['no at', { ...valid, at: 5 }],
  ])('refuses %s as not an event', (_, body) => {
    const d = decodeJournalMessage(msg(body));
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.malformed.reason).toBe(AnomalyReason.malformed);
  });

  it('refuses an event whose invocation is not the one of its subject', () => {
    const d = decodeJournalMessage(msg({ ...valid, invocation_id: 'act_2' }));
    expect(d.ok).toBe(false);
    if (!d.ok) {
      expect(d.malformed.reason).toBe(AnomalyReason.wrong_invocation);
      expect(d.malformed.type).toBe(EventType.ACTION_ACCEPTED);
    }
  });

  it('takes the invocation id from the last subject token', () => {
    expect(invocationIdOfSubject('p.v1.evt.act_XYZ')).toBe('act_XYZ');
  });
});
