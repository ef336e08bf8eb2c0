import type { Subjects } from '@postern/contract';
import type { GlobalOptions } from './args.js';
import type { Broker } from './broker.js';
import type { Output } from './output.js';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
export const DEFAULT_PREFIX = 'postern';

/** Everything a command may touch; tests and `main.ts` each build one. */
export interface Context {
  options: GlobalOptions;
  natsUrl: string;
  subjects: Subjects;
  out: Output;
  /** Connects on first use, so `--help` and usage errors never touch NATS. */
  broker(): Promise<Broker>;
  readStdin(): Promise<Buffer>;
  /** One line from a terminal stdin, not echoed; the caller wipes the buffer. */
  promptHidden(prompt: string): Promise<Buffer>;
  stdinIsTTY: boolean;
  stderrIsTTY: boolean;
  now(): number;
  sleep(ms: number): Promise<void>;
}
