import { isAbsolute, join, resolve } from 'node:path';
import { ProjectorConfigError } from './errors.js';

export const DbKind = { sqlite: 'sqlite', postgresql: 'postgresql' } as const;
export type DbKind = (typeof DbKind)[keyof typeof DbKind];

export type DbTarget = { kind: typeof DbKind.sqlite; file: string } | { kind: typeof DbKind.postgresql; url: string };

export const SQLITE_FILE_NAME = 'read-model.sqlite';

/**
 * Where the read model lives: PostgreSQL for a `postgres://` or `postgresql://`
 * URL, otherwise a SQLite file (`$POSTERN_HOME/read-model.sqlite`, or the path
 * of a `sqlite:` / `file:` URL).
 */
export function dbTarget(home: string, dbUrl?: string): DbTarget {
  const url = dbUrl?.trim();
  if (!url) return { kind: DbKind.sqlite, file: resolve(join(home, SQLITE_FILE_NAME)) };
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: DbKind.postgresql, url };
  const path = url.replace(/^(sqlite|file):(\/\/)?/i, '');
  if (path && (isAbsolute(path) || !/^[a-z][a-z0-9+.-]*:/i.test(url))) {
    return { kind: DbKind.sqlite, file: resolve(path) };
  }
  // Never echo the URL: it may carry a password.
  throw new ProjectorConfigError('POSTERN_DB_URL must be a postgres:// or postgresql:// URL, or a SQLite file path');
}
