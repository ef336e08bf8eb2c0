// Types for TypeScript callers of stack.mjs (the e2e suite, the CLI).

export declare const DEFAULT_HTTP_PORT: 8640;

export interface StartStackOptions {
  /** POSTERN_HOME; default `env.POSTERN_HOME`, else `./.postern`; made absolute. */
  home?: string;
  /** Environment for every service; NATS_URL and POSTERN_HOME are set to the resolved values. */
  env?: Record<string, string | undefined>;
  /** Receives every line: the launcher's own and the children's, prefixed `[name] `. */
  log?: (line: string) => void;
  /** The checkout whose `apps/<name>/dist/main.js` are started. */
  root?: string;
  /** Service names to start; default every service app present. */
  services?: string[];
  natsServerBin?: string | null;
  colour?: boolean;
  /** How long each child gets between SIGTERM and SIGKILL (default 10 000). */
  graceMs?: number;
  maxRestartsPerMinute?: number;
  /** Where to look for, or start, a local NATS when NATS_URL is unset (default 4222). */
  localNatsPort?: number;
}

export interface RunningStack {
  natsUrl: string;
  /** True when the stack started its own nats-server (stopped last by `stop()`). */
  ownNats: boolean;
  home: string;
  apiUrl: string;
  services: string[];
  stop(): Promise<void>;
  /** Resolves when the stack gave up on its own (a service kept exiting). */
  exited: Promise<{ code: number; reason: string }>;
}

export declare function startStack(options?: StartStackOptions): Promise<RunningStack>;
