import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { Policy } from '@postern/contract';
import { PolicyFileError } from './errors.js';
import { policyFromText, unreadable } from './policy-file.js';

export interface PolicyStoreOptions {
  /** Least time between two looks at the file (default 1000 ms). */
  checkIntervalMs?: number;
  /** Clock in milliseconds; tests pass their own. */
  now?: () => number;
  /** A changed file was loaded. */
  onReload?: (policy: Policy, generation: number) => void;
  /** A changed file was refused; called once per distinct file state. */
  onError?: (error: PolicyFileError) => void;
}

/** What identifies one version of the file without reading it. */
interface FileState {
  key: string;
  mtimeMs: number;
}

function stateOf(s: { ino: number; size: number; mtimeMs: number }): FileState {
  // The inode catches editors that save by renaming a new file over the old.
  return { key: `${s.ino}:${s.size}:${s.mtimeMs}`, mtimeMs: s.mtimeMs };
}

function fileState(path: string): FileState {
  try {
    return stateOf(statSync(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { key: `missing:${code ?? 'unknown'}`, mtimeMs: 0 };
  }
}

/**
 * A file modified this close to when it was read may change again without
 * its mtime or size moving (coarse timestamps), so its content is compared
 * until it has aged past that window.
 */
const RACY_WINDOW_MS = 2000;
const isRacy = (state: FileState) => Date.now() - state.mtimeMs < RACY_WINDOW_MS;

/**
 * The current policy of one file, reloaded when the file changes. A reload
 * that fails keeps the last good policy and exposes why in `lastError`: a
 * broken edit must neither widen nor drop what is allowed without anyone
 * noticing, and it must not stop the broker either.
 */
export class PolicyStore {
  readonly path: string;
  private policy: Policy;
  private seenState: FileState;
  /** The text last read, good or bad; null after a failed read. */
  private seenText: string | null;
  private checkedAt: number;
  private loads = 1;
  private error: PolicyFileError | null = null;
  private readonly interval: number;
  private readonly now: () => number;
  private readonly options: PolicyStoreOptions;

  private constructor(path: string, policy: Policy, state: FileState, text: string, options: PolicyStoreOptions) {
    this.path = path;
    this.policy = policy;
    this.seenState = state;
    this.seenText = text;
    this.options = options;
    this.interval = options.checkIntervalMs ?? 1000;
    this.now = options.now ?? Date.now;
    this.checkedAt = this.now();
  }

  /** Loads the file once; throws `PolicyFileError` when there is no good first policy. */
  static async open(path: string, options: PolicyStoreOptions = {}): Promise<PolicyStore> {
    // State before content: if the file changes in between, the next check
    // sees a newer state than the one recorded and reloads.
    let state: FileState;
    let text: string;
    try {
      state = stateOf(await stat(path));
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw unreadable(path, error);
    }
    return new PolicyStore(path, policyFromText(path, text), state, text, options);
  }

  /** The policy to decide with now; looks at the file at most once per interval. */
  current(): Policy {
    if (this.now() - this.checkedAt >= this.interval) this.refresh();
    return this.policy;
  }

  /** Why the file on disk is not the policy in force, or null when it is. */
  get lastError(): PolicyFileError | null {
    return this.error;
  }

  /** Counts successful loads (1 after `open`), so callers can tell a new policy apart. */
  get generation(): number {
    return this.loads;
  }

  /** Looks at the file now, whatever the interval; true when a new policy was loaded. */
  refresh(): boolean {
    this.checkedAt = this.now();
    const state = fileState(this.path);
    if (state.key === this.seenState.key && !isRacy(this.seenState)) return false;
    this.seenState = state;
    let next: Policy;
    try {
      const text = readFileSync(this.path, 'utf8');
      if (text === this.seenText) return false;
      this.seenText = text;
      next = policyFromText(this.path, text);
    } catch (error) {
      if (!(error instanceof PolicyFileError)) this.seenText = null;
      this.error = error instanceof PolicyFileError ? error : unreadable(this.path, error);
      this.options.onError?.(this.error);
      return false;
    }
    this.policy = next;
    this.error = null;
    this.loads += 1;
    this.options.onReload?.(next, this.loads);
    return true;
  }
}
