import { AnomalyReason } from './anomaly.js';
import type { Binding } from './binding.js';
import { CODES, type Code } from './code.js';
import { refuse, type EventData } from './evolve-refusal.js';
import { PHASES, type Phase } from './phase.js';
import { STAGES, type Stage } from './stage.js';

// Journal events arrive from other services and older versions: every field
// the fold relies on is checked here rather than trusted from the type.

export function isObject(v: unknown): v is EventData {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

export function isCode(v: unknown): v is Code {
  return typeof v === 'string' && (CODES as readonly string[]).includes(v);
}

export function isStage(v: unknown): v is Stage {
  return typeof v === 'string' && (STAGES as readonly string[]).includes(v);
}

export function isPhase(v: unknown): v is Phase {
  return typeof v === 'string' && (PHASES as readonly string[]).includes(v);
}

export function optString(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

export function needCode(d: EventData, type: string): Code {
  const code = d['code'];
  if (!isCode(code)) refuse(AnomalyReason.malformed, `${type} needs a valid data.code`);
  return code;
}

export function isBinding(v: unknown): v is Binding {
  if (!isObject(v)) return false;
  const c = v['credential'];
  return (
    typeof v['action'] === 'string' &&
    typeof v['target'] === 'string' &&
    isObject(c) &&
    typeof c['id'] === 'string' &&
    isCount(v['budget']) &&
    isCount(v['connect_attempts'])
  );
}
