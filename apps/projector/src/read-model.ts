import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { MikroORM, type EntityManager, type Options } from '@mikro-orm/core';
import { BetterSqliteDriver } from '@mikro-orm/better-sqlite';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { DbKind, type DbTarget } from './db-target.js';
import { ReadModelError } from './errors.js';
import { READ_MODEL_ENTITIES } from './read-model.entities.js';

const DRAIN_POLL_MS = 10;
const DRAIN_MAX_MS = 10_000;

function ormOptions(target: DbTarget): Options {
  const common = {
    entities: READ_MODEL_ENTITIES,
    debug: false,
    // No decorators and no TypeScript sources to discover: the schemas say it all.
    discovery: { warnWhenNoEntities: false },
    ensureIndexes: false,
  };
  if (target.kind === DbKind.postgresql) {
    return { ...common, driver: PostgreSqlDriver, clientUrl: target.url } as Options;
  }
  return { ...common, driver: BetterSqliteDriver, dbName: target.file } as Options;
}

/**
 * The read model's database: opens it, creates its schema, and can throw it
 * away and start again (replay). Every use goes through `use`, so a reset
 * waits for the work in flight and later work waits for the reset.
 */
export class ReadModel {
  private orm: MikroORM | null;
  private gate: Promise<void> | null = null;
  private active = 0;

  private constructor(
    readonly target: DbTarget,
    orm: MikroORM,
  ) {
    this.orm = orm;
  }

  get kind(): DbKind {
    return this.target.kind;
  }

  static async open(target: DbTarget): Promise<ReadModel> {
    return new ReadModel(target, await ReadModel.connect(target));
  }

  private static async connect(target: DbTarget): Promise<MikroORM> {
    try {
      if (target.kind === DbKind.sqlite) await mkdir(dirname(target.file), { recursive: true });
      const orm = await MikroORM.init(ormOptions(target));
      if (target.kind === DbKind.sqlite) {
        // WAL lets the API read while the projection writes; NORMAL is durable
        // enough for a model that is rebuilt from the journal.
        await orm.em.getConnection().execute('pragma journal_mode = WAL');
        await orm.em.getConnection().execute('pragma synchronous = NORMAL');
      }
      await orm.schema.updateSchema({ safe: true });
      return orm;
    } catch (err) {
      throw new ReadModelError(`cannot open the ${target.kind} read model`, { cause: err });
    }
  }

  /** Runs `fn` with a fresh entity manager once no reset is in progress. */
  async use<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    while (this.gate) await this.gate;
    const orm = this.orm;
    if (!orm) throw new ReadModelError('the read model is closed');
    this.active += 1;
    try {
      return await fn(orm.em.fork());
    } finally {
      this.active -= 1;
    }
  }

  /**
   * Drops everything and recreates an empty schema. For SQLite the file (and
   * its -wal/-shm) is deleted and created anew, so a file removed underneath
   * us is handled the same way.
   */
  async reset(): Promise<void> {
    while (this.gate) await this.gate;
    let release!: () => void;
    this.gate = new Promise<void>((r) => (release = r));
    try {
      await this.drain();
      const old = this.orm;
      if (this.target.kind === DbKind.sqlite) {
        this.orm = null;
        await old?.close(true);
        await removeSqliteFiles(this.target.file);
        this.orm = await ReadModel.connect(this.target);
      } else if (old) {
        await old.schema.dropSchema({ wrap: true });
        await old.schema.createSchema({ wrap: true });
      }
    } finally {
      this.gate = null;
      release();
    }
  }

  async close(): Promise<void> {
    while (this.gate) await this.gate;
    await this.drain();
    const orm = this.orm;
    this.orm = null;
    await orm?.close(true);
  }

  private async drain(): Promise<void> {
    const deadline = Date.now() + DRAIN_MAX_MS;
    while (this.active > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, DRAIN_POLL_MS));
    }
  }
}

async function removeSqliteFiles(file: string): Promise<void> {
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    await rm(file + suffix, { force: true });
  }
}
