import type { Client } from 'ssh2';

let nextConnectionNumber = 1;

/**
 * One authenticated SSH connection over a socket Postern opened and recorded.
 * Each `execCommand` on it opens its own session channel.
 */
export class SshConnection {
  readonly id: string;
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly hostKeySha256: string;
  /** @internal */ readonly client: Client;
  private closedFlag = false;
  private readonly closedPromise: Promise<void>;

  /** @internal */
  constructor(client: Client, remoteAddress: string, remotePort: number, hostKeySha256: string) {
    this.id = `s-${nextConnectionNumber++}`;
    this.client = client;
    this.remoteAddress = remoteAddress;
    this.remotePort = remotePort;
    this.hostKeySha256 = hostKeySha256;
    this.closedPromise = new Promise<void>((resolve) => {
      client.once('close', () => {
        this.closedFlag = true;
        resolve();
      });
    });
    // Errors after set-up surface through the exec that sees them; an
    // unhandled 'error' event must not crash the broker.
    client.on('error', () => undefined);
  }

  /** The socket has not closed. */
  get alive(): boolean {
    return !this.closedFlag;
  }

  /** Ends the connection (DISCONNECT, then FIN) and resolves once the socket closed. */
  async close(): Promise<void> {
    if (this.closedFlag) return;
    this.client.end();
    // A peer that never finishes the close must not hold the caller.
    const timer = setTimeout(() => this.client.destroy(), 2_000);
    await this.closedPromise;
    clearTimeout(timer);
  }

  /** Drops the socket at once. */
  destroy(): void {
    this.client.destroy();
  }

  /** @internal */
  whenClosed(): Promise<void> {
    return this.closedPromise;
  }
}
