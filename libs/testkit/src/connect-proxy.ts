import { connect, createServer, type Socket } from 'node:net';

export interface ConnectProxyOptions {
  /** Answer every CONNECT with this status instead of tunnelling (e.g. 403, 502). */
  refuseWith?: number;
}

export interface ConnectProxy {
  readonly port: number;
  readonly host: string;
  /** `host:port` targets tunnelled so far, in order. */
  readonly tunnels: readonly string[];
  close(): Promise<void>;
}

/** A minimal HTTP CONNECT proxy on 127.0.0.1 that tunnels or refuses. */
export async function startConnectProxy(opts: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const server = createServer((client) => {
    track(client);
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const m = /^CONNECT (\S+):(\d+) HTTP\/1\.1\r\n/.exec(buf.subarray(0, end + 2).toString('latin1'));
      if (m === null) {
        client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      if (opts.refuseWith !== undefined) {
        client.end(`HTTP/1.1 ${opts.refuseWith} Refused\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      const upstream = connect(Number(m[2]), m[1] as string);
      track(upstream);
      upstream.once('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
      upstream.once('connect', () => {
        tunnels.push(`${m[1]}:${m[2]}`);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        const rest = buf.subarray(end + 4);
        if (rest.length > 0) upstream.write(rest);
        client.pipe(upstream);
        upstream.pipe(client);
      });
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
  return {
    port: address.port,
    host: '127.0.0.1',
    get tunnels() {
      return tunnels;
    },
    close(): Promise<void> {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
