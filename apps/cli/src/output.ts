import { summaryLine } from './summary.js';
import type { BrokerReply } from './broker.js';

export interface Writable {
  write(text: string | Uint8Array): unknown;
}

/**
 * All printing goes through here: with `--json` stdout holds only the broker's
 * reply as received; without it, pretty JSON on stdout and a summary on stderr.
 */
export class Output {
  constructor(
    private readonly stdout: Writable,
    private readonly stderr: Writable,
    readonly json: boolean,
  ) {}

  reply(reply: BrokerReply): void {
    if (this.json) {
      this.stdout.write(`${reply.text.trimEnd()}\n`);
      return;
    }
    this.stdout.write(`${JSON.stringify(reply.body, null, 2)}\n`);
    const summary = summaryLine(reply.body);
    if (summary !== null) this.stderr.write(`${summary}\n`);
  }

  /** Bytes of a result, exactly as stored. */
  bytes(data: Uint8Array): void {
    this.stdout.write(data);
  }

  note(message: string): void {
    this.stderr.write(`${message}\n`);
  }

  error(message: string): void {
    this.stderr.write(`postern: ${message}\n`);
  }

  stderrWriter(): Writable {
    return this.stderr;
  }
}
