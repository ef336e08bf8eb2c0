// Command-line flags of `npm run bench`. Every phase is bounded twice: by a
// count and by wall time, so a slow or broken broker ends the run instead of
// hanging it.

export const DEFAULTS = Object.freeze({
  actions: 200,
  concurrency: 8,
  warmup: 10,
  latencySamples: 50,
  maxPhaseSeconds: 30,
  awaitMs: 20_000,
});

const FLAGS = {
  '--actions': 'actions',
  '--concurrency': 'concurrency',
  '--warmup': 'warmup',
  '--latency-samples': 'latencySamples',
  '--max-phase-seconds': 'maxPhaseSeconds',
};

export const USAGE = `usage: npm run bench -- [--actions N] [--concurrency C] [--warmup N] [--latency-samples N] [--max-phase-seconds S]
  --actions N            brokered actions in the throughput phase (default ${DEFAULTS.actions})
  --concurrency C        submissions in flight at once (default ${DEFAULTS.concurrency})
  --warmup N             brokered actions before anything is measured (default ${DEFAULTS.warmup})
  --latency-samples N    one-at-a-time calls for the latency phase, brokered and direct (default ${DEFAULTS.latencySamples})
  --max-phase-seconds S  wall-time ceiling of each measured phase (default ${DEFAULTS.maxPhaseSeconds})`;

export class BenchUsageError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'BenchUsageError';
  }
}

/** `--flag N` and `--flag=N`; every value a positive integer. */
export function parseBenchArgs(argv) {
  const options = { ...DEFAULTS, help: false };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (token === '--help' || token === '-h') {
      options.help = true;
      continue;
    }
    const [flag, inline] = token.split('=', 2);
    const key = FLAGS[flag];
    if (key === undefined) throw new BenchUsageError(`unknown flag ${token}`);
    const raw = inline ?? argv[++i];
    const value = Number(raw);
    if (raw === undefined || !Number.isInteger(value) || value < 1) {
      throw new BenchUsageError(`${flag} needs a positive integer, got ${raw ?? 'nothing'}`);
    }
    options[key] = value;
  }
  return options;
}
