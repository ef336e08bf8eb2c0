/** Progress of `replay`, drawn on stderr so stdout keeps only the summary. */

export interface Progress {
  processed: number;
  total: number | null;
}

const BAR_WIDTH = 10;
const PLAIN_INTERVAL_MS = 1000;
const TTY_INTERVAL_MS = 50;

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : null;
}

/**
 * Reads one progress message of `P.v1.projector.replay`: `{"seq", "last_seq"}`,
 * the stream sequence applied so far and the journal's last sequence when the
 * replay started. Anything else is ignored.
 */
export function parseProgress(message: unknown): Progress | null {
  if (typeof message !== 'object' || message === null) return null;
  const m = message as Record<string, unknown>;
  const processed = count(m.seq);
  if (processed === null) return null;
  const total = count(m.last_seq);
  return { processed, total: total === null || total === 0 ? null : total };
}

/** `replay [#####.....] 52% 1042/2000 events`, or `replay 1042 events` while the total is unknown. */
export function renderProgressBar(progress: Progress, width = BAR_WIDTH): string {
  const { processed, total } = progress;
  if (total === null) return `replay ${processed} events`;
  const ratio = Math.min(1, processed / total);
  const filled = Math.floor(ratio * width);
  const bar = '#'.repeat(filled) + '.'.repeat(width - filled);
  return `replay [${bar}] ${Math.floor(ratio * 100)}% ${processed}/${total} events`;
}

export interface ProgressSink {
  write(text: string): void;
  isTTY: boolean;
  now(): number;
}

/**
 * Redraws the bar in place on a terminal; elsewhere (a log file, CI) prints a
 * plain line at most once per second so the log stays readable.
 */
export class ProgressReporter {
  private lastDrawAt = Number.NEGATIVE_INFINITY;
  private lastLine: string | null = null;
  private drawnLine: string | null = null;
  private widest = 0;

  constructor(private readonly sink: ProgressSink) {}

  update(progress: Progress): void {
    this.lastLine = renderProgressBar(progress);
    const now = this.sink.now();
    const interval = this.sink.isTTY ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS;
    if (now - this.lastDrawAt < interval) return;
    this.lastDrawAt = now;
    this.draw(this.lastLine);
  }

  /** Draws the last state if it was throttled away, and ends the line. */
  finish(): void {
    if (this.lastLine !== null && this.lastLine !== this.drawnLine) this.draw(this.lastLine);
    if (this.sink.isTTY && this.drawnLine !== null) this.sink.write('\n');
  }

  private draw(line: string): void {
    if (this.sink.isTTY) {
      // Pad over what a longer previous line left on the terminal.
      this.sink.write(`\r${line.padEnd(this.widest)}`);
      this.widest = Math.max(this.widest, line.length);
    } else {
      this.sink.write(`${line}\n`);
    }
    this.drawnLine = line;
  }
}
