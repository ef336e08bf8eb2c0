import { AnomalyReason, EVENT_TYPES, type EventType, type StoredEvent } from '@postern/contract';

/** A message as it came off the stream, before any interpretation. */
export interface RawJournalMessage {
  seq: number;
  subject: string;
  data: Uint8Array;
}

export interface MalformedEvent {
  seq: number;
  invocation_id: string;
  /** The body's `type` when it had a string one, else empty. */
  type: string;
  reason: AnomalyReason;
  message: string;
  /** What to keep: the JSON text, or the raw text when it was not JSON. */
  body: string;
}

export type DecodedMessage = { ok: true; event: StoredEvent; body: string } | { ok: false; malformed: MalformedEvent };

const decoder = new TextDecoder('utf-8', { fatal: false });
const EVENT_TYPE_SET: ReadonlySet<string> = new Set(EVENT_TYPES);
const MAX_KEPT_TEXT = 64 * 1024;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown, min: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min;
}

/** The invocation id is the last token of `P.v1.evt.<invocation_id>`. */
export function invocationIdOfSubject(subject: string): string {
  const at = subject.lastIndexOf('.');
  return at >= 0 ? subject.slice(at + 1) : subject;
}

/** Which envelope field is missing or of the wrong kind, or null when the envelope is whole. */
function envelopeDefect(body: Record<string, unknown>): string | null {
  if (typeof body['type'] !== 'string' || !EVENT_TYPE_SET.has(body['type'])) return 'type';
  if (typeof body['invocation_id'] !== 'string' || body['invocation_id'] === '') return 'invocation_id';
  if (!isCount(body['n'], 1)) return 'n';
  if (!isCount(body['attempt'], 0)) return 'attempt';
  if (!isCount(body['generation'], 0)) return 'generation';
  if (typeof body['at'] !== 'string') return 'at';
  if (typeof body['source'] !== 'string') return 'source';
  if (typeof body['service'] !== 'string') return 'service';
  if (!isRecord(body['data'])) return 'data';
  return null;
}

/**
 * Reads one journal message as a StoredEvent. Anything else becomes a
 * MalformedEvent, never an exception: one bad message must not stop the
 * projection of everything behind it.
 */
export function decodeJournalMessage(msg: RawJournalMessage): DecodedMessage {
  const subjectId = invocationIdOfSubject(msg.subject);
  const text = decoder.decode(msg.data);
  const malformed = (reason: AnomalyReason, message: string, type = ''): DecodedMessage => ({
    ok: false,
    malformed: { seq: msg.seq, invocation_id: subjectId, type, reason, message, body: text.slice(0, MAX_KEPT_TEXT) },
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return malformed(AnomalyReason.malformed, 'The message body is not JSON.');
  }
  if (!isRecord(parsed)) return malformed(AnomalyReason.malformed, 'The message body is not a JSON object.');
  const type = typeof parsed['type'] === 'string' ? parsed['type'] : '';
  const defect = envelopeDefect(parsed);
  if (defect) {
    return malformed(AnomalyReason.malformed, `The event envelope has no valid "${defect}".`, type);
  }
  if (parsed['invocation_id'] !== subjectId) {
    return malformed(AnomalyReason.wrong_invocation, 'The event names another invocation than its subject.', type);
  }
  const event = { ...(parsed as Omit<StoredEvent, 'seq'>), type: type as EventType, seq: msg.seq } as StoredEvent;
  return { ok: true, event, body: text };
}
