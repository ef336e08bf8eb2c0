/**
 * Deterministic JSON: object keys sorted by code unit, no whitespace, arrays
 * in order, `undefined` object fields dropped (as JSON.stringify does). Two
 * shells that hash the same value must get the same bytes, whatever order the
 * keys were built in.
 */
export function canonicalJson(value: unknown): string {
  const out = encode(value);
  // JSON.stringify(undefined) is undefined; a digest input must be a string.
  return out ?? 'null';
}

function encode(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'bigint':
      // JSON has no bigint; a decimal string keeps the value without loss.
      return JSON.stringify(value.toString());
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      break;
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => encode(item) ?? 'null').join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const encoded = encode(record[key]);
    if (encoded !== undefined) parts.push(`${JSON.stringify(key)}:${encoded}`);
  }
  return `{${parts.join(',')}}`;
}
