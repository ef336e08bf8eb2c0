// Peak resident memory of our own child processes, read from /proc. VmHWM is
// the kernel's high-water mark since the process started, so one read after
// the load has passed sees the peak under load.
import { readdirSync, readFileSync } from 'node:fs';

function readProc(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null; // gone, or not ours to read
  }
}

function parentOf(status) {
  const match = /^PPid:\s+(\d+)/m.exec(status);
  return match ? Number(match[1]) : null;
}

function kib(status, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  return match ? Number(match[1]) : null;
}

/**
 * `[{ pid, cmdline }]` for the direct children of `parentPid`; the stack and
 * the test nats-server are both spawned by this process.
 */
export function childProcesses(parentPid = process.pid) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = readProc(entry, 'status');
    if (status === null || parentOf(status) !== parentPid) continue;
    const cmdline = (readProc(entry, 'cmdline') ?? '').split('\0').filter(Boolean);
    found.push({ pid: Number(entry), cmdline });
  }
  return found;
}

/** `{ peak_kib, current_kib }` of one process, or null once it has exited. */
export function memoryOf(pid) {
  const status = readProc(pid, 'status');
  if (status === null) return null;
  return { peak_kib: kib(status, 'VmHWM'), current_kib: kib(status, 'VmRSS') };
}
