import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempHome {
  home: string;
  /** `<home>/postern.yaml`; written only when a policy was given. */
  configPath: string;
}

/** For tests: a fresh `POSTERN_HOME` in the system temp folder, with the given policy file in it. */
export async function makeTempHome(service: string, policyYaml?: string): Promise<TempHome> {
  const home = await mkdtemp(join(tmpdir(), `postern-${service}-`));
  const configPath = join(home, 'postern.yaml');
  if (policyYaml !== undefined) await writeFile(configPath, policyYaml, 'utf8');
  return { home, configPath };
}
