import type { LogFields, WarningLog } from '../json-log.js';

/** For leak tests: a log that keeps every line as `{level, event, ...fields}` JSON. */
export function captureLog(lines: string[]): WarningLog {
  const push = (level: string) => (event: string, fields?: LogFields) => void lines.push(JSON.stringify({ level, event, ...fields }));
  return { info: push('info'), warn: push('warn'), error: push('error') };
}
