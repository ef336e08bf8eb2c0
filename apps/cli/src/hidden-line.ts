import { UsageError } from './errors.js';

// A passphrase or API token, typed or pasted; a key file belongs on a pipe.
export const MAX_HIDDEN_LINE_BYTES = 16 * 1024;

export const LineState = {
  more: 'more',
  done: 'done',
  cancelled: 'cancelled',
  too_long: 'too_long',
} as const;
export type LineState = (typeof LineState)[keyof typeof LineState];

const CR = 0x0d;
const LF = 0x0a;
const CTRL_C = 0x03;
const CTRL_D = 0x04;
const CTRL_U = 0x15;
const BACKSPACE = 0x08;
const DEL = 0x7f;
const ESC = 0x1b;

/**
 * The line editing a terminal does for us when it echoes, done by hand for a
 * raw-mode terminal that must not echo: enter ends, backspace removes a whole
 * UTF-8 character, Ctrl-U clears, Ctrl-C cancels, and escape sequences (arrow
 * keys) are dropped rather than taken into the secret. The bytes live in one
 * fixed buffer so that `take` and `wipe` leave no stray copy behind.
 */
export class HiddenLine {
  private readonly buf: Buffer;
  private length = 0;
  private state: LineState = LineState.more;
  // 0: plain, 1: after ESC, 2: inside a CSI/SS3 sequence.
  private escape = 0;

  constructor(readonly maxBytes = MAX_HIDDEN_LINE_BYTES) {
    this.buf = Buffer.alloc(maxBytes);
  }

  get status(): LineState {
    return this.state;
  }

  feed(chunk: Uint8Array): LineState {
    for (let i = 0; i < chunk.length && this.state === LineState.more; i++) this.byte(chunk[i] as number);
    return this.state;
  }

  private byte(b: number): void {
    if (this.escape === 1) {
      this.escape = b === 0x5b || b === 0x4f ? 2 : 0;
      return;
    }
    if (this.escape === 2) {
      if (b >= 0x40 && b <= 0x7e) this.escape = 0;
      return;
    }
    switch (b) {
      case CR:
      case LF:
        this.state = LineState.done;
        return;
      case CTRL_C:
        this.state = LineState.cancelled;
        return;
      case CTRL_D:
        this.state = this.length === 0 ? LineState.cancelled : LineState.done;
        return;
      case CTRL_U:
        this.buf.fill(0, 0, this.length);
        this.length = 0;
        return;
      case BACKSPACE:
      case DEL:
        this.backspace();
        return;
      case ESC:
        this.escape = 1;
        return;
      default:
        if (b < 0x20) return;
        if (this.length >= this.maxBytes) {
          this.state = LineState.too_long;
          this.wipe();
          return;
        }
        this.buf[this.length++] = b;
    }
  }

  private backspace(): void {
    // Continuation bytes are 10xxxxxx; drop them and their lead byte together.
    while (this.length > 0) {
      const b = this.buf[--this.length] as number;
      this.buf[this.length] = 0;
      if ((b & 0xc0) !== 0x80) return;
    }
  }

  /** The line typed, as a fresh buffer the caller must wipe; the editor's own copy is wiped. */
  take(): Buffer {
    const out = Buffer.alloc(this.length);
    this.buf.copy(out, 0, 0, this.length);
    this.wipe();
    return out;
  }

  wipe(): void {
    this.buf.fill(0);
    this.length = 0;
  }
}

/** A terminal stdin, as much of `tty.ReadStream` as the prompt needs. */
export interface RawInput {
  setRawMode?(mode: boolean): unknown;
  isRaw?: boolean;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'end', listener: () => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

export interface PromptOutput {
  write(text: string): unknown;
}

/**
 * Asks for one line on a terminal without echoing it. The prompt goes to
 * stderr so that stdout stays the reply alone; the terminal is put back the
 * way it was found whatever happens.
 */
export function promptHidden(input: RawInput, output: PromptOutput, prompt: string): Promise<Buffer> {
  if (typeof input.setRawMode !== 'function') {
    return Promise.reject(new UsageError('cannot read a secret from this terminal without echoing it: pipe it on stdin instead'));
  }
  const setRawMode = input.setRawMode.bind(input);
  const wasRaw = input.isRaw === true;
  const line = new HiddenLine();
  output.write(prompt);
  return new Promise<Buffer>((resolve, reject) => {
    const finish = (): void => {
      input.off('data', onData);
      input.off('end', onEnd);
      setRawMode(wasRaw);
      input.pause();
      output.write('\n');
      const state = line.status;
      if (state === LineState.done) {
        resolve(line.take());
        return;
      }
      line.wipe();
      reject(
        new UsageError(state === LineState.too_long ? `the secret is longer than ${line.maxBytes} bytes: pipe it on stdin instead` : 'cancelled'),
      );
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      const state = line.feed(bytes);
      // What the terminal sent is the secret; it must not outlive the read.
      bytes.fill(0);
      if (state !== LineState.more) finish();
    };
    const onEnd = (): void => {
      line.feed(Uint8Array.of(CTRL_D));
      finish();
    };
    setRawMode(true);
    input.on('data', onData);
    input.on('end', onEnd);
    input.resume();
  });
}
