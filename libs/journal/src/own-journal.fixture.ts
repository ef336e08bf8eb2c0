import type { NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { afterAll, beforeAll } from 'vitest';
import { connectNats } from './connect.js';
import { ensureJournal, type JournalResources } from './ensure-journal.js';

/** The parts a spec of this library works with, filled once its `beforeAll` ran. */
export interface OwnJournal {
  server: NatsServerHandle;
  nc: NatsConnection;
  res: JournalResources;
}

/**
 * A nats-server of the calling spec file's own (free port, temporary store)
 * with the journal's resources under `prefix`, stopped after the file.
 */
export function useOwnJournal(prefix: string): OwnJournal {
  const own = {} as OwnJournal;
  beforeAll(async () => {
    own.server = await startNatsServer();
    own.nc = await connectNats({ servers: own.server.url });
    own.res = await ensureJournal(own.nc, prefix);
  });
  afterAll(async () => {
    await own.nc?.close();
    await own.server?.stop();
  });
  return own;
}
