import type { NatsConnection, Subscription } from '@nats-io/transport-node';

/**
 * Wakes a waiter when anything is published on one invocation's event
 * subject. JetStream stores what is published on a core subject, so a plain
 * subscription sees every append as it happens; the message itself is not
 * trusted (the journal is re-read), it only says "look again".
 */
export class EventSignal {
  private readonly sub: Subscription;
  private pending = false;
  private wakeUp: (() => void) | null = null;

  private constructor(nc: NatsConnection, subject: string) {
    this.sub = nc.subscribe(subject, { callback: () => this.wake() });
  }

  /** Subscribes and makes sure the server knows it before the caller's first read, so no append falls between. */
  static async open(nc: NatsConnection, subject: string): Promise<EventSignal> {
    const signal = new EventSignal(nc, subject);
    await nc.flush();
    return signal;
  }

  /** Resolves on the next publication (or one seen since the last wait), or after `ms`. */
  wait(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      const self = this;
      function done(): void {
        clearTimeout(timer);
        self.wakeUp = null;
        self.pending = false;
        resolve();
      }
      this.wakeUp = done;
    });
  }

  /** Ends the current wait at once (new events, or the service is stopping). */
  wake(): void {
    if (this.wakeUp !== null) this.wakeUp();
    else this.pending = true;
  }

  close(): void {
    this.wake();
    this.sub.unsubscribe();
  }
}
