import type { HttpConnection } from './http-connection.js';

/**
 * Idle keep-alive connections per origin key. `acquire` never hands out a
 * connection already known dead: a dead one is closed and skipped.
 */
export class ConnectionPool {
  private readonly idle = new Map<string, HttpConnection[]>();
  private readonly maxIdlePerOrigin: number;

  constructor(opts: { maxIdlePerOrigin?: number } = {}) {
    this.maxIdlePerOrigin = opts.maxIdlePerOrigin ?? 8;
  }

  /** An idle, live connection for `origin`, removed from the pool; or null. */
  acquire(origin: string): HttpConnection | null {
    const list = this.idle.get(origin);
    while (list !== undefined && list.length > 0) {
      // Most recently released first: the least likely to have been closed idle.
      const conn = list.pop() as HttpConnection;
      if (conn.alive) return conn;
      conn.close();
    }
    return null;
  }

  /** Returns a connection whose exchange ended cleanly with keep-alive. */
  release(conn: HttpConnection): void {
    if (!conn.alive) {
      conn.close();
      return;
    }
    const list = this.idle.get(conn.origin) ?? [];
    list.push(conn);
    while (list.length > this.maxIdlePerOrigin) list.shift()?.close();
    this.idle.set(conn.origin, list);
  }

  /** Closes a connection that must not carry another request. */
  discard(conn: HttpConnection): void {
    const list = this.idle.get(conn.origin);
    if (list !== undefined) {
      const i = list.indexOf(conn);
      if (i >= 0) list.splice(i, 1);
    }
    conn.close();
  }

  /** Idle connections held for `origin` (dead ones included until acquired). */
  size(origin?: string): number {
    if (origin !== undefined) return this.idle.get(origin)?.length ?? 0;
    let n = 0;
    for (const list of this.idle.values()) n += list.length;
    return n;
  }

  close(): void {
    for (const list of this.idle.values()) for (const conn of list) conn.close();
    this.idle.clear();
  }
}
