import { connect, createInbox, RequestError, TimeoutError, type NatsConnection } from '@nats-io/transport-node';
import { BadReplyError, BrokerUnreachableError, UnreachableReason } from './errors.js';

export const START_HINT = 'Is the broker running? Start it with `npm start` in the repo root, or set NATS_URL.';

export interface BrokerReply {
  /** The reply exactly as received, for `--json`. */
  text: string;
  body: unknown;
  /** The raw bytes, for results whose body is not text. */
  data: Uint8Array;
}

export interface Subscription {
  unsubscribe(): void;
}

/** What the commands need from NATS: request-reply and one inbox subscription. */
export interface Broker {
  request(subject: string, payload: string, timeoutMs: number): Promise<BrokerReply>;
  subscribe(subject: string, onMessage: (body: unknown) => void): Subscription;
  inbox(): string;
  close(): Promise<void>;
}

export function parseServers(url: string): string[] {
  return url
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A NATS URL may carry `user:password@`; never print that part. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^/@]*@/, '//***@');
}

function decodeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function unreachable(err: unknown, subject: string, timeoutMs: number): Error {
  if (err instanceof TimeoutError) {
    return new BrokerUnreachableError(
      `no reply on ${subject} within ${timeoutMs} ms: the broker may be stopped or overloaded (try a larger --timeout). ${START_HINT}`,
      UnreachableReason.timeout,
      subject,
      { cause: err },
    );
  }
  if (err instanceof RequestError && err.isNoResponders()) {
    return new BrokerUnreachableError(
      `nothing answers on ${subject}. ${START_HINT} (The subject prefix comes from POSTERN_PREFIX.)`,
      UnreachableReason.no_responders,
      subject,
      { cause: err },
    );
  }
  if (err instanceof RequestError) {
    return new BrokerUnreachableError(
      `the NATS connection broke while waiting on ${subject}. ${START_HINT}`,
      UnreachableReason.disconnected,
      subject,
      { cause: err },
    );
  }
  return err instanceof Error ? err : new Error(String(err));
}

class NatsBroker implements Broker {
  constructor(private readonly nc: NatsConnection) {}

  async request(subject: string, payload: string, timeoutMs: number): Promise<BrokerReply> {
    let data: Uint8Array;
    try {
      const msg = await this.nc.request(subject, payload, { timeout: timeoutMs });
      data = msg.data;
    } catch (err) {
      throw unreachable(err, subject, timeoutMs);
    }
    const text = new TextDecoder().decode(data);
    const body = decodeJson(text);
    if (body === undefined) throw new BadReplyError(`the reply on ${subject} is not JSON (${data.length} bytes)`);
    return { text, body, data };
  }

  subscribe(subject: string, onMessage: (body: unknown) => void): Subscription {
    const sub = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err !== null) return;
        const body = decodeJson(msg.string());
        if (body !== undefined) onMessage(body);
      },
    });
    return { unsubscribe: () => sub.unsubscribe() };
  }

  inbox(): string {
    return createInbox();
  }

  async close(): Promise<void> {
    await this.nc.close();
  }
}

/**
 * Connects once, without reconnecting: a one-shot command should say that the
 * broker is unreachable rather than hang waiting for it.
 */
export async function connectBroker(url: string, timeoutMs: number): Promise<Broker> {
  const servers = parseServers(url);
  if (servers.length === 0) {
    throw new BrokerUnreachableError(`NATS_URL is empty. ${START_HINT}`, UnreachableReason.connect_failed, null);
  }
  try {
    const nc = await connect({ servers, name: 'postern-cli', timeout: timeoutMs, reconnect: false, maxReconnectAttempts: 0 });
    return new NatsBroker(nc);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new BrokerUnreachableError(
      `cannot connect to NATS at ${servers.map(redactUrl).join(',')} (${reason}). ${START_HINT}`,
      UnreachableReason.connect_failed,
      null,
      { cause: err },
    );
  }
}
