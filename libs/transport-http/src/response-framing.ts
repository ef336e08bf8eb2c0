import type { BodyFraming } from './types.js';

/**
 * Postern's own incremental HTTP/1.1 response parser. It sees the raw bytes
 * the client reads and decides on its own whether the response's framing
 * finished (DESIGN.md section 3): undici may call a cut chunked body or a
 * reset close-delimited body complete; this parser does not.
 */
export type FramingState = 'status_line' | 'headers' | 'body' | 'done' | 'error';

export interface ResponseFramingOptions {
  /** The request method: a HEAD response has no body whatever it declares. */
  method?: string;
  /** Bound on the status line plus the header section. */
  maxHeaderBytes?: number;
}

type ChunkState = 'size' | 'data' | 'data_crlf' | 'trailers';

const CR = 13;
const LF = 10;
const DEFAULT_MAX_HEADER_BYTES = 64 * 1024;
const MAX_LINE_BYTES = 16 * 1024;

export class ResponseFramingParser {
  state: FramingState = 'status_line';
  readonly interimStatuses: number[] = [];
  status: number | null = null;
  /** Status from the final status line, known before the headers end. */
  finalStatusLine: number | null = null;
  httpMinorVersion = 1;
  headers: [string, string][] | null = null;
  framing: BodyFraming | null = null;
  contentLength: number | null = null;
  /** Decoded body bytes seen so far. */
  bodyBytes = 0;
  /** Bytes that arrived after the response was done (a protocol fault). */
  trailingBytes = 0;
  /** Any byte that is not part of a complete interim response. */
  finalBytesSeen = false;
  error: string | null = null;
  ended: 'fin' | 'reset' | null = null;

  private readonly method: string;
  private readonly maxHeaderBytes: number;
  private line: number[] = [];
  private pendingHeaders: [string, string][] = [];
  private headerBytes = 0;
  private currentStatus = 0;
  private chunkState: ChunkState = 'size';
  private chunkRemaining = 0;
  private remaining = 0;

  constructor(opts: ResponseFramingOptions = {}) {
    this.method = (opts.method ?? 'GET').toUpperCase();
    this.maxHeaderBytes = opts.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
  }

  get headersComplete(): boolean {
    return this.status !== null;
  }

  get bodyComplete(): boolean {
    return this.state === 'done';
  }

  /** The connection may carry another request after this response. */
  get keepAlive(): boolean {
    if (this.state !== 'done' || this.trailingBytes > 0 || this.framing === 'close' || this.headers === null) return false;
    const connection = this.headerValues('connection').join(',').toLowerCase();
    const tokens = connection.split(',').map((t) => t.trim());
    if (tokens.includes('close')) return false;
    if (this.httpMinorVersion === 0) return tokens.includes('keep-alive');
    return true;
  }

  headerValues(name: string): string[] {
    const lower = name.toLowerCase();
    return (this.headers ?? []).filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
  }

  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      switch (this.state) {
        case 'done':
          this.trailingBytes += chunk.length - i;
          return;
        case 'error':
          return;
        case 'status_line':
        case 'headers':
          i = this.pushHead(chunk, i);
          break;
        case 'body':
          i = this.pushBody(chunk, i);
          break;
        default: {
          const never: never = this.state;
          throw new Error(`unknown state ${String(never)}`);
        }
      }
    }
  }

  /** The peer ended the stream: a clean FIN or a reset. */
  end(how: 'fin' | 'reset'): void {
    if (this.ended !== null) return;
    this.ended = how;
    // Only a close-delimited body is finished by the close, and only a clean one.
    if (this.state === 'body' && this.framing === 'close' && how === 'fin') this.state = 'done';
  }

  private fail(reason: string): void {
    this.state = 'error';
    this.error = reason;
  }

  private pushHead(chunk: Uint8Array, start: number): number {
    let i = start;
    for (; i < chunk.length; i++) {
      const b = chunk[i] as number;
      this.markStarted();
      this.headerBytes++;
      if (this.headerBytes > this.maxHeaderBytes) {
        this.fail('headers_too_large');
        return chunk.length;
      }
      if (b !== LF) {
        this.line.push(b);
        if (this.line.length > MAX_LINE_BYTES) {
          this.fail('line_too_long');
          return chunk.length;
        }
        continue;
      }
      if (this.line.length > 0 && this.line[this.line.length - 1] === CR) this.line.pop();
      const text = Buffer.from(this.line).toString('latin1');
      this.line = [];
      if (!this.onHeadLine(text)) return chunk.length;
      if (this.state !== 'status_line' && this.state !== 'headers') return i + 1;
    }
    return i;
  }

  private markStarted(): void {
    // Bytes of a head whose status line is incomplete or final count as a started final response.
    if (this.state === 'status_line' || this.currentStatus >= 200) this.finalBytesSeen = true;
  }

  /** Returns false when the parser failed. */
  private onHeadLine(text: string): boolean {
    if (this.state === 'status_line') {
      const m = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(text);
      if (m === null) {
        this.fail('bad_status_line');
        return false;
      }
      this.httpMinorVersion = Number(m[1]);
      this.currentStatus = Number(m[2]);
      if (this.currentStatus >= 200) this.finalStatusLine = this.currentStatus;
      else this.finalBytesSeen = false;
      this.pendingHeaders = [];
      this.state = 'headers';
      return true;
    }
    if (text === '') return this.onHeadEnd();
    if (text[0] === ' ' || text[0] === '\t') {
      this.fail('obsolete_line_folding');
      return false;
    }
    const colon = text.indexOf(':');
    if (colon <= 0 || /[\s]/.test(text.slice(0, colon))) {
      this.fail('bad_header_line');
      return false;
    }
    this.pendingHeaders.push([text.slice(0, colon), text.slice(colon + 1).trim()]);
    return true;
  }

  private onHeadEnd(): boolean {
    if (this.currentStatus < 200) {
      // 101 would switch protocols: not something a Postern request asks for.
      if (this.currentStatus === 101) {
        this.fail('unexpected_upgrade');
        return false;
      }
      this.interimStatuses.push(this.currentStatus);
      this.headerBytes = 0;
      this.state = 'status_line';
      return true;
    }
    this.status = this.currentStatus;
    this.headers = this.pendingHeaders;
    return this.chooseFraming();
  }

  /** RFC 9112 section 6.3, in order. */
  private chooseFraming(): boolean {
    const status = this.status as number;
    if (this.method === 'HEAD' || status === 204 || status === 304) {
      this.framing = 'content-length';
      this.contentLength = 0;
      this.state = 'done';
      return true;
    }
    const te = this.headerValues('transfer-encoding');
    if (te.length > 0) {
      const codings = te.join(',').split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== '');
      if (codings[codings.length - 1] === 'chunked') {
        this.framing = 'chunked';
        this.chunkState = 'size';
        this.state = 'body';
        return true;
      }
      this.framing = 'close';
      this.state = 'body';
      return true;
    }
    const cl = this.headerValues('content-length');
    if (cl.length > 0) {
      const values = new Set(cl.join(',').split(',').map((t) => t.trim()));
      const [only] = [...values];
      if (values.size !== 1 || only === undefined || !/^\d{1,15}$/.test(only)) {
        this.fail('bad_content_length');
        return false;
      }
      this.framing = 'content-length';
      this.contentLength = Number(only);
      this.remaining = this.contentLength;
      this.state = this.remaining === 0 ? 'done' : 'body';
      return true;
    }
    this.framing = 'close';
    this.state = 'body';
    return true;
  }

  private pushBody(chunk: Uint8Array, start: number): number {
    if (this.framing === 'close') {
      this.bodyBytes += chunk.length - start;
      return chunk.length;
    }
    if (this.framing === 'content-length') {
      const take = Math.min(this.remaining, chunk.length - start);
      this.remaining -= take;
      this.bodyBytes += take;
      if (this.remaining === 0) this.state = 'done';
      return start + take;
    }
    return this.pushChunked(chunk, start);
  }

  private pushChunked(chunk: Uint8Array, start: number): number {
    let i = start;
    while (i < chunk.length && this.state === 'body') {
      switch (this.chunkState) {
        case 'data': {
          const take = Math.min(this.chunkRemaining, chunk.length - i);
          this.chunkRemaining -= take;
          this.bodyBytes += take;
          i += take;
          if (this.chunkRemaining === 0) this.chunkState = 'data_crlf';
          break;
        }
        case 'size':
        case 'data_crlf':
        case 'trailers': {
          const b = chunk[i] as number;
          i++;
          if (b !== LF) {
            this.line.push(b);
            if (this.line.length > MAX_LINE_BYTES) this.fail('line_too_long');
            break;
          }
          if (this.line.length > 0 && this.line[this.line.length - 1] === CR) this.line.pop();
          const text = Buffer.from(this.line).toString('latin1');
          this.line = [];
          this.onChunkLine(text);
          break;
        }
        default: {
          const never: never = this.chunkState;
          throw new Error(`unknown chunk state ${String(never)}`);
        }
      }
    }
    return this.state === 'error' ? chunk.length : i;
  }

  private onChunkLine(text: string): void {
    switch (this.chunkState) {
      case 'data_crlf':
        if (text !== '') this.fail('bad_chunk_terminator');
        else this.chunkState = 'size';
        return;
      case 'size': {
        const m = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/.exec(text);
        if (m === null) {
          this.fail('bad_chunk_size');
          return;
        }
        const size = parseInt(m[1] as string, 16);
        if (size === 0) this.chunkState = 'trailers';
        else {
          this.chunkRemaining = size;
          this.chunkState = 'data';
        }
        return;
      }
      case 'trailers':
        if (text === '') this.state = 'done';
        else if (text.indexOf(':') <= 0) this.fail('bad_trailer_line');
        return;
      case 'data':
        return;
      default: {
        const never: never = this.chunkState;
        throw new Error(`unknown chunk state ${String(never)}`);
      }
    }
  }
}
