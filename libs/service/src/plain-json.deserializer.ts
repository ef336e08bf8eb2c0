import type { Msg } from '@nats-io/transport-node';
import type { ConsumerDeserializer, IncomingEvent, IncomingRequest } from '@nestjs/microservices';
import { MalformedRequest } from './malformed-request.js';

/**
 * Reads a request as plain UTF-8 JSON, with no framework framing, so that a
 * producer with a bare NATS client can speak to a service. Nest routes a
 * packet by `pattern` and answers only packets that carry an `id`; the NATS
 * reply subject is unique per request, so it serves as that id.
 *
 * Bytes that are not JSON become a `MalformedRequest` instead of an exception:
 * the handler answers BAD_REQUEST rather than the transport dropping the
 * request or replying with its own error shape.
 */
export class PlainJsonDeserializer implements ConsumerDeserializer {
  deserialize(msg: Msg, options?: Record<string, unknown>): IncomingRequest | IncomingEvent {
    const pattern = typeof options?.channel === 'string' ? options.channel : msg.subject;
    const data = parsePlainJson(msg.data);
    return msg.reply ? { pattern, data, id: msg.reply } : { pattern, data };
  }
}

export function parsePlainJson(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new MalformedRequest('not UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return new MalformedRequest('not JSON');
  }
}
