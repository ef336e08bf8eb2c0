import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';

export interface ConnectNatsOptions {
  /** One URL, a list, or a comma-separated string (the NATS_URL form). */
  servers: string | string[];
  name?: string;
  /** Timeout of the first connection, in ms (default 5000). */
  timeoutMs?: number;
}

export function parseServers(servers: string | string[]): string[] {
  const list = Array.isArray(servers) ? servers : servers.split(',');
  return list.map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * Connects to NATS. Services keep reconnecting forever: a broker that gives
 * up on its journal can only stop, which helps nobody.
 */
export function connectNats(opts: ConnectNatsOptions): Promise<NatsConnection> {
  const servers = parseServers(opts.servers);
  if (servers.length === 0) throw new Error('no NATS server URL given');
  return connect({
    servers,
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    timeout: opts.timeoutMs ?? 5_000,
    maxReconnectAttempts: -1,
  });
}
