import type { PolicyError } from './policy-error.js';

export type YamlMapping = Record<string, unknown>;

export interface IntRange {
  min: number;
  max?: number;
}

/** Largest delay a Node timer honours; a larger one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

/**
 * Reads untyped YAML values against the schema and collects every defect
 * with its path, so one run of the parser reports all of them. Each reader
 * returns the default (or `undefined`) after recording a defect; the caller
 * discards the result once `errors` is not empty.
 */
export class FieldReader {
  readonly errors: PolicyError[] = [];

  fail(path: string, reason: string): void {
    this.errors.push({ path, reason });
  }

  isMapping(value: unknown): value is YamlMapping {
    return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
  }

  /** An optional section: absent or empty (`key:`) means "all defaults". */
  section(parent: YamlMapping, key: string, path: string): YamlMapping | undefined {
    const value = parent[key];
    if (value === undefined || value === null) return undefined;
    if (!this.isMapping(value)) {
      this.fail(path, 'must be a mapping');
      return undefined;
    }
    return value;
  }

  /** The schema is closed: a misspelt key must not be silently ignored. */
  closed(mapping: YamlMapping, path: string, allowed: readonly string[]): void {
    for (const key of Object.keys(mapping)) {
      if (!allowed.includes(key)) this.fail(childPath(path, key), `unknown key (allowed: ${allowed.join(', ')})`);
    }
  }

  int(mapping: YamlMapping | undefined, key: string, path: string, fallback: number, range: IntRange): number {
    const value = mapping?.[key];
    if (value === undefined) return fallback;
    return this.intValue(value, path, range) ?? fallback;
  }

  intValue(value: unknown, path: string, range: IntRange): number | undefined {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      this.fail(path, 'must be an integer');
      return undefined;
    }
    if (value < range.min || (range.max !== undefined && value > range.max)) {
      this.fail(path, range.max === undefined ? `must be at least ${range.min}` : `must be between ${range.min} and ${range.max}`);
      return undefined;
    }
    return value;
  }

  bool(mapping: YamlMapping | undefined, key: string, path: string, fallback: boolean): boolean {
    const value = mapping?.[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') {
      this.fail(path, 'must be true or false');
      return fallback;
    }
    return value;
  }

  string(mapping: YamlMapping | undefined, key: string, path: string): string | undefined {
    const value = mapping?.[key];
    // `key:` with no value is absent; `required` reports it where it matters.
    if (value === undefined || value === null) return undefined;
    return this.stringValue(value, path);
  }

  stringValue(value: unknown, path: string): string | undefined {
    if (typeof value !== 'string') {
      this.fail(path, 'must be a string');
      return undefined;
    }
    if (value.trim() === '') {
      this.fail(path, 'must not be empty');
      return undefined;
    }
    return value;
  }

  required(mapping: YamlMapping, key: string, path: string): boolean {
    if (mapping[key] === undefined || mapping[key] === null) {
      this.fail(path, 'is required');
      return false;
    }
    return true;
  }

  /** A list of strings, each checked by `check` (which returns a reason or null). */
  stringList(
    mapping: YamlMapping | undefined,
    key: string,
    path: string,
    check: (item: string) => string | null = () => null,
  ): string[] {
    const value = mapping?.[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.fail(path, 'must be a list');
      return [];
    }
    const items: string[] = [];
    value.forEach((item: unknown, index) => {
      const itemPath = childPath(path, index);
      const text = this.stringValue(item, itemPath);
      if (text === undefined) return;
      const reason = check(text);
      if (reason !== null) this.fail(itemPath, reason);
      else items.push(text);
    });
    return items;
  }
}
