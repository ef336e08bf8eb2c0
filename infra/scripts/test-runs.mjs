// Which vitest runs `npm test` makes for its argv: the workspace suite and
// the infra scripts' own suite, each only when a path filter can match it.
import { join } from 'node:path';

const INFRA_CONFIG = join('infra', 'vitest.config.mjs');
const isInfraPath = (arg) => arg.replace(/^\.\//, '').startsWith('infra');

export function plannedRuns(argv) {
  const paths = argv.filter((arg) => !arg.startsWith('-'));
  const filtered = paths.length > 0;
  const runs = [];
  if (!filtered || paths.some((arg) => !isInfraPath(arg))) runs.push({ name: 'workspace', config: [] });
  if (!filtered || paths.some(isInfraPath)) runs.push({ name: 'infra', config: ['--config', INFRA_CONFIG] });
  // A filter meant for one suite matches nothing in the other; that is not a failure.
  return runs.map((run) => ({ name: run.name, args: filtered ? [...run.config, '--passWithNoTests'] : run.config }));
}
