import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DbKind, dbTarget, SQLITE_FILE_NAME } from './db-target.js';
import { ProjectorConfigError } from './errors.js';

describe('dbTarget', () => {
  it('defaults to a SQLite file in POSTERN_HOME', () => {
    expect(dbTarget('./.postern')).toEqual({ kind: DbKind.sqlite, file: resolve('./.postern', SQLITE_FILE_NAME) });
  });

  it.each(['postgres://u@127.0.0.1/db', 'postgresql://u:p@127.0.0.1:5432/db'])('uses PostgreSQL for %s', (url) => {
    expect(dbTarget('/h', url)).toEqual({ kind: DbKind.postgresql, url });
  });

  it('takes a sqlite: URL or a path as a SQLite file', () => {
    expect(dbTarget('/h', 'sqlite:///tmp/x.sqlite')).toEqual({ kind: DbKind.sqlite, file: '/tmp/x.sqlite' });
    expect(dbTarget('/h', '/tmp/y.sqlite')).toEqual({ kind: DbKind.sqlite, file: '/tmp/y.sqlite' });
  });

  it('refuses another scheme without echoing the URL', () => {
    expect(() => dbTarget('/h', 'mysql://root:pw@host/db')).toThrow(ProjectorConfigError);
    try {
      dbTarget('/h', 'mysql://root:pw@host/db');
    } catch (err) {
      expect(String((err as Error).message)).not.toContain('pw');
    }
  });
});
