import { configFromEnv } from './projector-config.js';
import { startProjector } from './projector-app.js';

const running = await startProjector(configFromEnv());
console.log(`projector listening on ${running.url}`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('projector: shutdown failed:', err instanceof Error ? err.message : err);
        process.exit(1);
      },
    );
  });
}
