import { describe, expect, it } from 'vitest';
import { parseProgress, ProgressReporter, renderProgressBar } from './progress.js';

describe('renderProgressBar', () => {
  it('draws the bar, the floor of the percentage and the counts', () => {
    expect(renderProgressBar({ processed: 1042, total: 2000 })).toBe('replay [#####.....] 52% 1042/2000 events');
    expect(renderProgressBar({ processed: 0, total: 2000 })).toBe('replay [..........] 0% 0/2000 events');
    expect(renderProgressBar({ processed: 2000, total: 2000 })).toBe('replay [##########] 100% 2000/2000 events');
  });

  it('never draws past 100% when the journal grew during the replay', () => {
    expect(renderProgressBar({ processed: 2500, total: 2000 })).toBe('replay [##########] 100% 2500/2000 events');
  });

  it('shows only the count while the total is unknown', () => {
    expect(renderProgressBar({ processed: 17, total: null })).toBe('replay 17 events');
  });
});

describe('parseProgress', () => {
  it("reads the projector's seq and last_seq, and ignores what it cannot read", () => {
    expect(parseProgress({ seq: 5, last_seq: 10 })).toEqual({ processed: 5, total: 10 });
    expect(parseProgress({ seq: 5 })).toEqual({ processed: 5, total: null });
    expect(parseProgress({ seq: 5, last_seq: 0 })).toEqual({ processed: 5, total: null });
    expect(parseProgress({ processed: 5, total: 10 })).toBeNull();
    expect(parseProgress({ seq: -1 })).toBeNull();
    expect(parseProgress('5')).toBeNull();
    expect(parseProgress(null)).toBeNull();
  });
});

function sink(isTTY: boolean) {
  const writes: string[] = [];
  let clock = 0;
  return {
    writes,
    advance: (ms: number) => {
      clock += ms;
    },
    sink: { write: (t: string) => writes.push(t), isTTY, now: () => clock },
  };
}

describe('ProgressReporter', () => {
  it('prints plain lines at most once per second off a terminal, and the last state at the end', () => {
    const s = sink(false);
    const r = new ProgressReporter(s.sink);
    r.update({ processed: 1, total: 4 });
    s.advance(300);
    r.update({ processed: 2, total: 4 });
    s.advance(300);
    r.update({ processed: 3, total: 4 });
    s.advance(500);
    r.update({ processed: 4, total: 4 });
    r.finish();
    expect(s.writes).toEqual(['replay [##........] 25% 1/4 events\n', 'replay [##########] 100% 4/4 events\n']);
  });

  it('prints the final state off a terminal when it was throttled away', () => {
    const s = sink(false);
    const r = new ProgressReporter(s.sink);
    r.update({ processed: 1, total: 2 });
    r.update({ processed: 2, total: 2 });
    r.finish();
    expect(s.writes).toEqual(['replay [#####.....] 50% 1/2 events\n', 'replay [##########] 100% 2/2 events\n']);
  });

  it('redraws in place with a carriage return on a terminal and ends the line when done', () => {
    const s = sink(true);
    const r = new ProgressReporter(s.sink);
    r.update({ processed: 5, total: null });
    s.advance(100);
    r.update({ processed: 1, total: 2 });
    r.finish();
    expect(s.writes[0]).toBe('\rreplay 5 events');
    expect(s.writes[1]).toBe('\rreplay [#####.....] 50% 1/2 events');
    expect(s.writes.at(-1)).toBe('\n');
    expect(s.writes.every((w) => !w.includes('\n') || w === '\n')).toBe(true);
  });

  it('pads over a longer previous line on a terminal', () => {
    const s = sink(true);
    const r = new ProgressReporter(s.sink);
    r.update({ processed: 1, total: 1000 });
    s.advance(100);
    r.update({ processed: 7, total: null });
    expect(s.writes[1]).toBe(`\r${'replay 7 events'.padEnd('replay [..........] 0% 1/1000 events'.length)}`);
  });

  it('writes nothing when no progress ever came', () => {
    const s = sink(true);
    new ProgressReporter(s.sink).finish();
    expect(s.writes).toEqual([]);
  });
});
