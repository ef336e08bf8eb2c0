import { headers, type MsgHdrs } from '@nats-io/transport-node';
import type { JournalEvent, StoredEvent } from '@postern/contract';
import { JournalDecodeError } from './errors.js';

/** Header naming the event type, so consumers can skip events without parsing bodies. */
export const EVENT_TYPE_HEADER = 'Postern-Event';
export const MSG_ID_HEADER = 'Nats-Msg-Id';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeEvent(event: JournalEvent): Uint8Array {
  return encoder.encode(JSON.stringify(event));
}

export function eventHeaders(event: JournalEvent): MsgHdrs {
  const h = headers();
  h.set(EVENT_TYPE_HEADER, event.type);
  return h;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses a stored message body into an event; the envelope is checked, `data` is left to the fold. */
export function decodeEvent(data: Uint8Array, seq: number): StoredEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(data));
  } catch (err) {
    throw new JournalDecodeError(`event at seq ${seq} is not JSON`, seq, { cause: err });
  }
  if (
    !isRecord(parsed) ||
    typeof parsed['type'] !== 'string' ||
    typeof parsed['invocation_id'] !== 'string' ||
    typeof parsed['n'] !== 'number'
  ) {
    throw new JournalDecodeError(`event at seq ${seq} lacks type, invocation_id or n`, seq);
  }
  const event = parsed as unknown as JournalEvent;
  return { ...event, data: isRecord(event.data) ? event.data : {}, seq };
}
