// The broker's services, in start order. Later issues add apps; the launcher
// starts whichever of them exist in this checkout.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const SERVICE_ORDER = ['credential', 'intake', 'dispatcher', 'delivery', 'projector'];

/** `[{ name, main, built }]` for each service app present under `apps/`. */
export function serviceApps(root) {
  return SERVICE_ORDER.filter((name) => existsSync(join(root, 'apps', name, 'package.json'))).map((name) => {
    const main = join(root, 'apps', name, 'dist', 'main.js');
    return { name, main, built: existsSync(main) };
  });
}
