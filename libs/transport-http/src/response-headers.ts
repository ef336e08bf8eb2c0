/** Response headers kept in the result store (CONTRACT.md section 5), lower case. */
export const ALLOWED_RESPONSE_HEADERS: readonly string[] = [
  'content-type',
  'content-length',
  'location',
  'retry-after',
  'etag',
  'last-modified',
  'date',
  'proxy-status',
  'x-request-id',
  'request-id',
  'x-amzn-requestid',
  'x-amz-request-id',
  'x-correlation-id',
  'x-github-request-id',
  'cf-ray',
];

/**
 * Keeps only allow-listed headers (plus the policy's extra names), names in
 * lower case, repeated headers joined with `, ` as HTTP allows.
 */
export function filterResponseHeaders(headers: readonly (readonly [string, string])[], extra: readonly string[] = []): Record<string, string> {
  const allowed = new Set([...ALLOWED_RESPONSE_HEADERS, ...extra.map((n) => n.toLowerCase())]);
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (!allowed.has(lower)) continue;
    out[lower] = out[lower] === undefined ? value : `${out[lower]}, ${value}`;
  }
  return out;
}

/** First value of a header, case-insensitive. */
export function headerValue(headers: readonly (readonly [string, string])[] | null, name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers?.find(([n]) => n.toLowerCase() === lower)?.[1];
}

/** Retry-After as milliseconds from `nowMs`: delta-seconds or an HTTP-date; never negative. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // IMF-fixdate, RFC 850 and asctime all carry a weekday name.
  if (!/^[A-Za-z]{3}/.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

export interface ProxyStatusEntry {
  /** The proxy's name (token or quoted string). */
  name: string;
  error?: string;
  details?: string;
  /** Every parameter as read, including `error` and `details`. */
  params: Record<string, string | number | boolean>;
}

function splitOutsideQuotes(input: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < input.length; i++) {
    const c = input[i] as string;
    if (quoted && c === '\\' && i + 1 < input.length) {
      cur += c + (input[i + 1] as string);
      i++;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === sep && !quoted) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out;
}

function bareItem(raw: string): string | number | boolean {
  const v = raw.trim();
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) return v.slice(1, -1).replace(/\\(["\\])/g, '$1');
  if (v === '?1') return true;
  if (v === '?0') return false;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return v;
}

/** RFC 9209 Proxy-Status: a structured list of `name; param=value; ...` entries. */
export function parseProxyStatus(value: string | undefined): ProxyStatusEntry[] {
  if (value === undefined) return [];
  const entries: ProxyStatusEntry[] = [];
  for (const member of splitOutsideQuotes(value, ',')) {
    const [head, ...paramParts] = splitOutsideQuotes(member, ';');
    if (head === undefined || head.trim() === '') continue;
    const entry: ProxyStatusEntry = { name: String(bareItem(head)), params: {} };
    for (const part of paramParts) {
      const eq = part.indexOf('=');
      const key = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
      if (key === '') continue;
      const val = eq < 0 ? true : bareItem(part.slice(eq + 1));
      entry.params[key] = val;
      if (key === 'error') entry.error = String(val);
      if (key === 'details') entry.details = String(val);
    }
    entries.push(entry);
  }
  return entries;
}
