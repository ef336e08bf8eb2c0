import { createSocket, type Socket } from 'node:dgram';

/**
 * A DNS server on 127.0.0.1 (UDP) for tests, so that name failures never come
 * from the machine's own resolver. Names decide the answer:
 * - listed in `addresses`: an A record;
 * - starting with `servfail.`: SERVFAIL (a temporary failure);
 * - anything else: NXDOMAIN.
 */
export interface HostileDnsServer {
  readonly port: number;
  /** `127.0.0.1:<port>`, as resolvers take it. */
  readonly address: string;
  /** Queries answered, by name (lower case). */
  queries(name?: string): number;
  close(): Promise<void>;
}

const RCODE = { noerror: 0, servfail: 2, nxdomain: 3 } as const;

interface Question {
  name: string;
  type: number;
  /** The question section as received, echoed in the answer. */
  raw: Buffer;
}

function readQuestion(packet: Buffer): Question | null {
  let offset = 12;
  const labels: string[] = [];
  for (let i = 0; i < 128; i++) {
    if (offset >= packet.length) return null;
    const length = packet[offset]!;
    offset += 1;
    if (length === 0) break;
    if (length > 63 || offset + length > packet.length) return null;
    labels.push(packet.subarray(offset, offset + length).toString('ascii'));
    offset += length;
  }
  if (offset + 4 > packet.length) return null;
  const type = packet.readUInt16BE(offset);
  return { name: labels.join('.').toLowerCase(), type, raw: packet.subarray(12, offset + 4) };
}

function answer(query: Buffer, question: Question, rcode: number, ipv4: string | null): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, the query's opcode and RD, RA; then the response code.
  const rd = query[2]! & 0x01;
  header[2] = 0x80 | (query[2]! & 0x78) | rd;
  header[3] = 0x80 | rcode;
  header.writeUInt16BE(1, 4);
  const records: Buffer[] = [];
  if (ipv4 !== null && question.type === 1) {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question
    record.writeUInt16BE(1, 2); // A
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(5, 6); // TTL
    record.writeUInt16BE(4, 10);
    ipv4.split('.').forEach((octet, i) => (record[12 + i] = Number(octet)));
    records.push(record);
  }
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, question.raw, ...records]);
}

export async function startHostileDnsServer(
  opts: { addresses?: Record<string, string> } = {},
): Promise<HostileDnsServer> {
  const addresses = new Map(Object.entries(opts.addresses ?? {}).map(([name, ip]) => [name.toLowerCase(), ip]));
  const counts = new Map<string, number>();
  const socket: Socket = createSocket('udp4');
  socket.on('message', (packet, peer) => {
    const question = packet.length >= 12 ? readQuestion(packet) : null;
    if (question === null) return;
    counts.set(question.name, (counts.get(question.name) ?? 0) + 1);
    const ip = addresses.get(question.name) ?? null;
    const rcode = ip !== null ? RCODE.noerror : question.name.startsWith('servfail.') ? RCODE.servfail : RCODE.nxdomain;
    socket.send(answer(packet, question, rcode, ip), peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve());
  });
  const port = socket.address().port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    queries: (name) =>
      name === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(name.toLowerCase()) ?? 0),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
