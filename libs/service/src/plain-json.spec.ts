import type { Msg } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { isMalformedRequest } from './malformed-request.js';
import { parsePlainJson, PlainJsonDeserializer } from './plain-json.deserializer.js';
import { PlainJsonSerializer } from './plain-json.serializer.js';

describe('plain JSON serializer', () => {
  it('names the failing service in the service-error header, with an empty body', () => {
    const out = new PlainJsonSerializer('credential service').serialize({ id: 'r', err: new Error('boom') });
    expect(out.data.byteLength).toBe(0);
    expect(out.headers?.get('Nats-Service-Error-Code')).toBe('503');
    expect(out.headers?.get('Nats-Service-Error')).toBe('credential service could not complete the request');
  });

  it('writes an absent response as JSON null', () => {
    const out = new PlainJsonSerializer('intake').serialize({ id: 'r', response: undefined });
    expect(new TextDecoder().decode(out.data)).toBe('null');
  });
});

describe('plain JSON deserializer', () => {
  it('routes by the subject when Nest gives no channel', () => {
    const msg = { subject: 'p.v1.x', data: new TextEncoder().encode('[1]'), reply: 'r1' } as unknown as Msg;
    expect(new PlainJsonDeserializer().deserialize(msg)).toEqual({ pattern: 'p.v1.x', data: [1], id: 'r1' });
  });

  it('marks bytes that are not UTF-8 or not JSON, saying which', () => {
    const notUtf8 = parsePlainJson(new Uint8Array([0x7b, 0xff, 0x7d]));
    const notJson = parsePlainJson(new TextEncoder().encode('{'));
    expect(isMalformedRequest(notUtf8) && notUtf8.reason).toBe('not UTF-8');
    expect(isMalformedRequest(notJson) && notJson.reason).toBe('not JSON');
  });
});
