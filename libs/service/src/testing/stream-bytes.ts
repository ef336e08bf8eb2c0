import type { JournalResources } from '@postern/journal';

/**
 * For leak tests: every message of every stream on the server (journal, KV
 * buckets, object stores), headers and body, as one byte-faithful latin1
 * string per message.
 */
export async function allStreamBytes(res: JournalResources): Promise<string[]> {
  const out: string[] = [];
  const streams = await res.jsm.streams.names().next();
  for (const name of streams) {
    const info = await res.jsm.streams.info(name);
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq++) {
      const msg = await res.jsm.streams.getMessage(name, { seq }).catch(() => null);
      if (msg === null) continue;
      const headerText = msg.header === undefined ? '' : [...msg.header.keys()].map((k) => `${k}: ${msg.header.get(k)}`).join('\n');
      out.push(`${msg.subject}\n${headerText}\n${Buffer.from(msg.data).toString('latin1')}`);
    }
  }
  return out;
}
