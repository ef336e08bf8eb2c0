import { Inject, Injectable } from '@nestjs/common';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { subjects } from '@postern/contract';
import { badRequestReply, unavailableReply } from './error-replies.js';
import type { ProjectorConfig } from './projector-config.js';
import { NATS_CONNECTION, PROJECTOR, PROJECTOR_CONFIG } from './projector.constants.js';
import type { Projector } from './projector.js';

/** At most about ten progress messages a second. */
const PROGRESS_INTERVAL_MS = 100;
// A plain subject: tokens of visible characters, no wildcards.
const SUBJECT_PATTERN = /^[^\s.*>]+(\.[^\s.*>]+)*$/;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export type ReplayRequest = { progress_subject?: string };

/** Reads a replay request; an empty body means `{}`. */
export function parseReplayRequest(data: Uint8Array): { ok: true; value: ReplayRequest } | { ok: false; field?: string } {
  const text = decoder.decode(data).trim();
  if (text === '') return { ok: true, value: {} };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false };
  const progress = (body as Record<string, unknown>)['progress_subject'];
  if (progress === undefined || progress === null) return { ok: true, value: {} };
  if (typeof progress !== 'string' || progress.length > 255 || !SUBJECT_PATTERN.test(progress)) {
    return { ok: false, field: 'progress_subject' };
  }
  return { ok: true, value: { progress_subject: progress } };
}

/**
 * `P.v1.projector.replay`: rebuilds the read model from the journal. Plain
 * JSON over core NATS, no framework framing, so any NATS client can ask.
 */
@Injectable()
export class ReplayHandler {
  private sub: Subscription | null = null;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PROJECTOR) private readonly projector: Projector,
    @Inject(PROJECTOR_CONFIG) private readonly config: ProjectorConfig,
  ) {}

  listen(): void {
    if (this.sub) return;
    this.sub = this.nc.subscribe(subjects(this.config.prefix).projectorReplay, {
      queue: `${this.config.prefix}_projector`,
      callback: (err, msg) => {
        if (!err) void this.handle(msg);
      },
    });
  }

  async close(): Promise<void> {
    const sub = this.sub;
    this.sub = null;
    if (sub && !sub.isClosed()) await sub.drain().catch(() => undefined);
  }

  async handle(msg: Msg): Promise<void> {
    const req = parseReplayRequest(msg.data);
    if (!req.ok) {
      const message = req.field
        ? 'progress_subject must be a plain NATS subject.'
        : 'The replay request must be empty or a JSON object.';
      this.reply(msg, badRequestReply(req.field, message));
      return;
    }
    const progressSubject = req.value.progress_subject;
    let lastSent = 0;
    const progress = (seq: number, lastSeq: number): void => {
      if (!progressSubject) return;
      const now = Date.now();
      if (seq < lastSeq && now - lastSent < PROGRESS_INTERVAL_MS) return;
      lastSent = now;
      this.nc.publish(progressSubject, encoder.encode(JSON.stringify({ seq, last_seq: lastSeq })));
    };
    try {
      this.reply(msg, await this.projector.replay(progress));
    } catch {
      this.reply(msg, unavailableReply());
    }
  }

  private reply(msg: Msg, body: unknown): void {
    if (!msg.reply) return;
    msg.respond(encoder.encode(JSON.stringify(body)));
  }
}
