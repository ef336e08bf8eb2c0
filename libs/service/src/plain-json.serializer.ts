import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { ConsumerSerializer, OutgoingResponse } from '@nestjs/microservices';

export interface PlainJsonReply {
  data: Uint8Array;
  headers?: MsgHdrs;
}

/**
 * Writes a reply as the handler's return value in plain JSON: no
 * `{response, isDisposed, id}` envelope. A handler that failed (the journal
 * unreachable, a bug) has no contract code that would be true, so the reply
 * carries the NATS service-error headers and an empty body: the caller learns
 * nothing was decided and may ask again (every request-reply subject is a
 * read, an idempotent append or keyed by `client_request_id`).
 */
export class PlainJsonSerializer implements ConsumerSerializer {
  /** `service` names who failed in the error header, e.g. `intake` or `credential service`. */
  constructor(private readonly service: string) {}

  serialize(packet: OutgoingResponse): PlainJsonReply {
    if (packet.err !== undefined && packet.err !== null) {
      const h = natsHeaders();
      h.set('Nats-Service-Error-Code', '503');
      h.set('Nats-Service-Error', `${this.service} could not complete the request`);
      return { data: new Uint8Array(0), headers: h };
    }
    return { data: new TextEncoder().encode(JSON.stringify(packet.response ?? null)) };
  }
}
