import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { UsageError } from './errors.js';
import { HiddenLine, LineState, promptHidden, type RawInput } from './hidden-line.js';

const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('HiddenLine', () => {
  it('ends at enter and hands over exactly the bytes typed', () => {
    const line = new HiddenLine();
    expect(line.feed(bytes('hunter'))).toBe(LineState.more);
    expect(line.feed(bytes('2\rtrailing'))).toBe(LineState.done);
    expect(line.take().toString('utf8')).toBe('hunter2');
  });

  it('removes a whole UTF-8 character on backspace and clears on Ctrl-U', () => {
    const line = new HiddenLine();
    line.feed(bytes('pä'));
    line.feed(Uint8Array.of(0x7f));
    line.feed(bytes('ss'));
    line.feed(Uint8Array.of(0x08));
    expect(line.feed(bytes('\n'))).toBe(LineState.done);
    expect(line.take().toString('utf8')).toBe('ps');
    const cleared = new HiddenLine();
    cleared.feed(bytes('wrong'));
    cleared.feed(Uint8Array.of(0x15));
    cleared.feed(bytes('right\r'));
    expect(cleared.take().toString('utf8')).toBe('right');
  });

  it('drops arrow-key escape sequences and other control bytes', () => {
    const line = new HiddenLine();
    line.feed(bytes('a\u001b[Db\u001bOA\tc\r'));
    expect(line.take().toString('utf8')).toBe('abc');
  });

  it('cancels on Ctrl-C, and on Ctrl-D only when nothing was typed', () => {
    expect(new HiddenLine().feed(bytes('abc\u0003def\r'))).toBe(LineState.cancelled);
    expect(new HiddenLine().feed(Uint8Array.of(0x04))).toBe(LineState.cancelled);
    const line = new HiddenLine();
    expect(line.feed(bytes('x\u0004'))).toBe(LineState.done);
    expect(line.take().toString('utf8')).toBe('x');
  });

  it('refuses a line longer than its bound', () => {
    const line = new HiddenLine(4);
    expect(line.feed(bytes('12345'))).toBe(LineState.too_long);
    expect(line.take()).toHaveLength(0);
  });
});

class FakeTty extends EventEmitter {
  isRaw = false;
  modes: boolean[] = [];
  resumed = 0;
  paused = 0;
  setRawMode(mode: boolean): this {
    this.modes.push(mode);
    this.isRaw = mode;
    return this;
  }
  resume(): this {
    this.resumed++;
    return this;
  }
  pause(): this {
    this.paused++;
    return this;
  }
}

function capture(): { text: string; write(t: string): void } {
  return {
    text: '',
    write(t: string) {
      this.text += t;
    },
  };
}

describe('promptHidden', () => {
  it('prompts on the given output, reads in raw mode without echo, and restores the terminal', async () => {
    const tty = new FakeTty();
    const out = capture();
    const pending = promptHidden(tty as unknown as RawInput, out, 'vault passphrase: ');
    const chunk = bytes('correct horse\r');
    tty.emit('data', chunk);
    const got = await pending;
    expect(got.toString('utf8')).toBe('correct horse');
    expect(out.text).toBe('vault passphrase: \n');
    expect(tty.modes).toEqual([true, false]);
    expect(tty.paused).toBe(1);
    expect(tty.listenerCount('data')).toBe(0);
    // The terminal's own chunk is wiped once read.
    expect(chunk.every((b) => b === 0)).toBe(true);
  });

  it('rejects with a usage error on Ctrl-C and on end of input, restoring the terminal', async () => {
    const tty = new FakeTty();
    const pending = promptHidden(tty as unknown as RawInput, capture(), 'p: ');
    tty.emit('data', bytes('abc\u0003'));
    await expect(pending).rejects.toThrow(UsageError);
    expect(tty.modes).toEqual([true, false]);
    const eof = new FakeTty();
    const atEnd = promptHidden(eof as unknown as RawInput, capture(), 'p: ');
    eof.emit('end');
    await expect(atEnd).rejects.toThrow('cancelled');
  });

  it('refuses a terminal that cannot be put in raw mode', async () => {
    const plain = new EventEmitter() as unknown as RawInput;
    Object.assign(plain, { resume: () => undefined, pause: () => undefined });
    await expect(promptHidden(plain, capture(), 'p: ')).rejects.toThrow('pipe it on stdin');
  });
});
