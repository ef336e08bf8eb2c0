import { describe, expect, it } from 'vitest';
import { ResponseFramingParser } from './response-framing.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** Feeds the text one byte at a time: framing must not depend on chunk boundaries. */
function byteByByte(text: string, method = 'GET'): ResponseFramingParser {
  const p = new ResponseFramingParser({ method });
  for (const b of enc(text)) p.push(Uint8Array.of(b));
  return p;
}

function whole(text: string, method = 'GET'): ResponseFramingParser {
  const p = new ResponseFramingParser({ method });
  p.push(enc(text));
  return p;
}

describe('ResponseFramingParser', () => {
  for (const [name, feed] of [['byte by byte', byteByByte], ['in one chunk', whole]] as const) {
    describe(name, () => {
      it('completes a Content-Length body exactly at its length', () => {
        const p = feed('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
        expect(p).toMatchObject({ status: 200, framing: 'content-length', bodyBytes: 5, state: 'done' });
        expect(p.bodyComplete).toBe(true);
        expect(p.keepAlive).toBe(true);
      });

      it('is not complete one byte short', () => {
        const p = feed('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhell');
        p.end('fin');
        expect(p.bodyComplete).toBe(false);
        expect(p.bodyBytes).toBe(4);
      });

      it('decodes chunked bodies with extensions and trailers', () => {
        const p = feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n');
        expect(p).toMatchObject({ framing: 'chunked', bodyBytes: 15, state: 'done' });
      });

      it('chunked without the terminating chunk is not complete', () => {
        const p = feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
        p.end('fin');
        expect(p.bodyComplete).toBe(false);
        expect(p.state).toBe('body');
      });

      it('chunked with the 0-chunk but no final CRLF is not complete', () => {
        const p = feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n');
        p.end('fin');
        expect(p.bodyComplete).toBe(false);
      });

      it('a bad chunk size line is an error', () => {
        const p = feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n');
        expect(p.state).toBe('error');
        expect(p.error).toBe('bad_chunk_size');
      });

      it('chunk data longer than announced is an error', () => {
        const p = feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n');
        expect(p.error).toBe('bad_chunk_terminator');
      });

      it('skips 1xx responses and records them', () => {
        const p = feed('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n');
        expect(p.interimStatuses).toEqual([100, 103]);
        expect(p.status).toBe(201);
        expect(p.bodyComplete).toBe(true);
      });

      it('only interim responses: no final response started', () => {
        const p = feed('HTTP/1.1 100 Continue\r\n\r\n');
        p.end('fin');
        expect(p.interimStatuses).toEqual([100]);
        expect(p.finalBytesSeen).toBe(false);
        expect(p.status).toBeNull();
      });

      it('a cut head: final response started, no status', () => {
        const p = feed('HTTP/1.1 200 OK\r\nContent-Ty');
        p.end('fin');
        expect(p.finalBytesSeen).toBe(true);
        expect(p.status).toBeNull();
        expect(p.finalStatusLine).toBe(200);
        expect(p.headersComplete).toBe(false);
      });

      it('close-delimited: complete on a clean FIN only', () => {
        const a = feed('HTTP/1.1 200 OK\r\n\r\nabc');
        expect(a.framing).toBe('close');
        expect(a.bodyComplete).toBe(false);
        a.end('fin');
        expect(a.bodyComplete).toBe(true);
        expect(a.keepAlive).toBe(false);
        const b = feed('HTTP/1.1 200 OK\r\n\r\nabc');
        b.end('reset');
        expect(b.bodyComplete).toBe(false);
      });

      it('a reset after a Content-Length body completed keeps it complete', () => {
        const p = feed('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx');
        p.end('reset');
        expect(p.bodyComplete).toBe(true);
      });

      it('HEAD, 204 and 304 have no body whatever they declare', () => {
        expect(feed('HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n', 'HEAD').bodyComplete).toBe(true);
        expect(feed('HTTP/1.1 204 No Content\r\n\r\n').bodyComplete).toBe(true);
        expect(feed('HTTP/1.1 304 Not Modified\r\nContent-Length: 12\r\n\r\n').bodyComplete).toBe(true);
      });

      it('Transfer-Encoding wins over Content-Length', () => {
        const p = feed('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
        expect(p.framing).toBe('chunked');
        expect(p.bodyComplete).toBe(true);
        expect(p.keepAlive).toBe(true);
      });

      it('a non-chunked transfer coding is close-delimited', () => {
        const p = feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxx');
        expect(p.framing).toBe('close');
      });

      it('conflicting Content-Length values are an error', () => {
        expect(feed('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc').error).toBe('bad_content_length');
        expect(feed('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n').error).toBe('bad_content_length');
      });

      it('equal repeated Content-Length values are accepted', () => {
        expect(feed('HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nab').bodyComplete).toBe(true);
      });

      it('a garbage status line is an error', () => {
        expect(feed('SSH-2.0-OpenSSH\r\n').error).toBe('bad_status_line');
      });

      it('bytes after a complete response make it not reusable', () => {
        const p = feed('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxEXTRA');
        expect(p.bodyComplete).toBe(true);
        expect(p.trailingBytes).toBe(5);
        expect(p.keepAlive).toBe(false);
      });

      it('Connection: close and HTTP/1.0 are not keep-alive', () => {
        expect(feed('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n').keepAlive).toBe(false);
        expect(feed('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n').keepAlive).toBe(false);
        expect(feed('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n').keepAlive).toBe(true);
      });

      it('keeps header names and values as sent', () => {
        const p = feed('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 3\r\nX-A:  spaced  \r\nContent-Length: 0\r\n\r\n');
        expect(p.headers).toEqual([
          ['Retry-After', '3'],
          ['X-A', 'spaced'],
          ['Content-Length', '0'],
        ]);
      });
    });
  }

  it('bounds the header section', () => {
    const p = new ResponseFramingParser({ maxHeaderBytes: 100 });
    p.push(enc(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(200)}\r\n\r\n`));
    expect(p.error).toBe('headers_too_large');
  });

  it('rejects a 101 upgrade', () => {
    expect(whole('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n').error).toBe('unexpected_upgrade');
  });

  it('rejects obsolete line folding', () => {
    expect(whole('HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n').error).toBe('obsolete_line_folding');
  });

  it('accepts bare LF line endings', () => {
    expect(whole('HTTP/1.1 200 OK\nContent-Length: 2\n\nok').bodyComplete).toBe(true);
  });
});
