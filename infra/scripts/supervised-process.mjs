// One child process of the stack: its output goes to the console (prefixed)
// and to its own log file; an unexpected exit is restarted with backoff until
// it happens too often, then the owner is told to give up.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';

const KEEP_LINES = 30;
const WINDOW_MS = 60_000;
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5_000;

export function superviseProcess({
  name,
  command,
  args,
  cwd,
  env,
  logFile,
  print,
  label,
  maxRestartsPerMinute = 5,
  onGiveUp = () => {},
}) {
  const log = createWriteStream(logFile, { flags: 'a' });
  const recent = [];
  const restarts = [];
  let child = null;
  let stopping = false;
  let restartTimer = null;
  let exitWaiters = [];

  const record = (line) => {
    recent.push(line);
    if (recent.length > KEEP_LINES) recent.shift();
    if (!log.writableEnded) log.write(`${line}\n`);
    print(`${label}${line}`);
  };

  const follow = (stream) => {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', record);
  };

  const spawnChild = () => {
    const current = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    log.write(`--- ${new Date().toISOString()} pid ${current.pid ?? '-'}: ${[command, ...args].join(' ')}\n`);
    child = current;
    follow(current.stdout);
    follow(current.stderr);
    current.once('error', (err) => record(`could not start: ${err.message}`));
    current.once('close', (code, signal) => {
      child = null;
      const waiters = exitWaiters;
      exitWaiters = [];
      waiters.forEach((wake) => wake());
      if (!stopping) onUnexpectedExit(code, signal);
    });
  };

  const onUnexpectedExit = (code, signal) => {
    const now = Date.now();
    while (restarts.length > 0 && now - restarts[0] > WINDOW_MS) restarts.shift();
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (restarts.length >= maxRestartsPerMinute) {
      record(`exited (${how}); ${restarts.length} restarts within a minute, giving up`);
      onGiveUp({ name, code, signal, lastLines: [...recent] });
      return;
    }
    const delay = Math.min(FIRST_DELAY_MS * 2 ** restarts.length, MAX_DELAY_MS);
    restarts.push(now);
    record(`exited unexpectedly (${how}); restarting in ${delay} ms`);
    restartTimer = setTimeout(() => {
      restartTimer = null;
      if (!stopping) spawnChild();
    }, delay);
  };

  const exited = () => (child ? new Promise((wake) => exitWaiters.push(wake)) : Promise.resolve());

  /** SIGTERM, then SIGKILL once `graceMs` has passed; resolves when the child is gone. */
  const stop = async (graceMs = 10_000) => {
    stopping = true;
    if (restartTimer) clearTimeout(restartTimer);
    restartTimer = null;
    if (child) {
      const gone = exited();
      child.kill('SIGTERM');
      let timer;
      const late = new Promise((wake) => {
        timer = setTimeout(wake, graceMs, 'late');
      });
      if ((await Promise.race([gone, late])) === 'late' && child) {
        record(`did not stop within ${graceMs} ms, killing it`);
        child.kill('SIGKILL');
        await gone;
      }
      clearTimeout(timer);
    }
    await new Promise((done) => log.end(done));
  };

  spawnChild();
  return {
    name,
    get pid() {
      return child?.pid;
    },
    lastLines: () => [...recent],
    exited,
    stop,
  };
}
