import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Client } from 'undici';
import { ConnectionSpentError } from './errors.js';

let nextConnectionNumber = 1;

const PEER_RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** Receives every byte undici reads from the socket, and how the stream ended. */
export interface SocketObserver {
  data(chunk: Uint8Array): void;
  /** `reset` is the peer's; `error` a local failure (undici or Postern destroyed the socket). */
  end(how: 'fin' | 'reset' | 'error', diagnostic: string | undefined): void;
}

/** Generous so that undici never closes an idle socket the pool still lists. */
const UNDICI_KEEP_ALIVE_MS = 60_000;

/**
 * One owned socket and the undici `Client` that speaks HTTP/1.1 over it. The
 * client gets this socket exactly once; a later connect attempt fails, so a
 * request can never leave on a connection Postern did not set up and record.
 */
export class HttpConnection {
  readonly id: string;
  readonly origin: string;
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly tlsPeerSha256: string | undefined;
  /** @internal */ readonly socket: Socket | TLSSocket;
  /** @internal */ readonly client: Client;
  /** @internal */ observer: SocketObserver | null = null;
  /** Bytes that arrived while no exchange was listening (a protocol fault). */
  private strayBytes = 0;
  private exchanges = 0;
  private ended = false;
  private finSeen = false;
  private failed: string | undefined;
  private closedByUs = false;
  private handedOut = false;
  private busyFlag = false;

  constructor(origin: string, socket: Socket | TLSSocket, tlsPeerSha256?: string) {
    this.id = `c-${nextConnectionNumber++}`;
    this.origin = origin;
    this.socket = socket;
    this.remoteAddress = socket.remoteAddress ?? '';
    this.remotePort = socket.remotePort ?? 0;
    this.tlsPeerSha256 = tlsPeerSha256;
    // Registered before undici's own listeners, so the observer sees each
    // chunk and the end of the stream before undici acts on them.
    socket.on('data', (chunk: Buffer) => {
      if (this.observer !== null) this.observer.data(chunk);
      else this.strayBytes += chunk.length;
    });
    socket.on('end', () => {
      this.ended = true;
      this.finSeen = true;
      this.observer?.end('fin', undefined);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      this.failed = err.code ?? err.name;
      this.observer?.end(PEER_RESET_CODES.has(this.failed) ? 'reset' : 'error', this.failed);
    });
    socket.on('close', () => {
      this.ended = true;
      // A close with neither FIN nor error was a local destroy: not a clean end.
      if (!this.finSeen) this.observer?.end('error', this.failed ?? 'closed');
    });
    this.client = new Client(origin, {
      connect: (_opts, callback) => {
        if (this.handedOut) {
          callback(new ConnectionSpentError(this.id), null);
          return;
        }
        this.handedOut = true;
        // undici's resume loop only picks up a connection that arrives after it returned.
        queueMicrotask(() => callback(null, socket));
      },
      pipelining: 1,
      // Postern runs its own timers (exchange.ts); undici's would race them.
      headersTimeout: 0,
      bodyTimeout: 0,
      keepAliveTimeout: UNDICI_KEEP_ALIVE_MS,
      keepAliveMaxTimeout: UNDICI_KEEP_ALIVE_MS,
      keepAliveTimeoutThreshold: 0,
    });
  }

  /** False until an exchange on this connection has ended, true after. */
  get reused(): boolean {
    return this.exchanges > 0;
  }

  /**
   * Whether a request may be handed to this connection: the peer has not
   * ended or reset it, nothing unexpected arrived, and it was not closed.
   */
  get alive(): boolean {
    return (
      !this.ended &&
      this.failed === undefined &&
      !this.closedByUs &&
      !this.socket.destroyed &&
      this.strayBytes === 0 &&
      !this.busyFlag &&
      !this.client.destroyed &&
      !this.client.closed
    );
  }

  /** @internal */
  beginExchange(observer: SocketObserver): void {
    this.busyFlag = true;
    this.observer = observer;
  }

  /** @internal */
  endExchange(): void {
    this.observer = null;
    this.exchanges++;
    this.busyFlag = false;
  }

  close(): void {
    this.closedByUs = true;
    this.client.destroy().catch(() => undefined);
    this.socket.destroy();
  }
}
