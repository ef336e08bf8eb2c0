import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Policy } from '@postern/contract';
import { DEFAULT_POLICY_YAML } from './default-policy-yaml.js';
import { PolicyFileError } from './errors.js';
import { parsePolicy } from './parse-policy.js';
import { FILE_PATH } from './policy-error.js';

/**
 * Reads and parses the policy file. Throws `PolicyFileError` for a file that
 * cannot be read or is not a valid policy; `ca_file` paths are resolved
 * against the file's own directory, so the policy means the same thing
 * whatever the broker's working directory.
 */
export async function loadPolicyFile(path: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw unreadable(path, error);
  }
  return policyFromText(path, text);
}

/**
 * Writes the commented default policy when `path` does not exist (creating
 * its directory). Never overwrites: an operator's file is theirs.
 */
export async function ensurePolicyFile(path: string): Promise<{ created: boolean }> {
  await mkdir(dirname(path), { recursive: true });
  try {
    // `wx` fails when the file exists, so two brokers starting at once can
    // not both write it and neither clobbers an edit.
    await writeFile(path, DEFAULT_POLICY_YAML, { encoding: 'utf8', flag: 'wx' });
    return { created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { created: false };
    throw error;
  }
}

/** Shared by the async loader and the store's synchronous reload. */
export function policyFromText(path: string, text: string): Policy {
  const result = parsePolicy(text);
  if (!result.ok) throw new PolicyFileError(path, result.errors);
  const base = dirname(resolve(path));
  for (const target of result.policy.targets) {
    if (target.ca_file !== undefined && !isAbsolute(target.ca_file)) target.ca_file = resolve(base, target.ca_file);
  }
  return result.policy;
}

export function unreadable(path: string, error: unknown): PolicyFileError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT' ? 'file not found' : `cannot be read (${code ?? String(error)})`;
  return new PolicyFileError(path, [{ path: FILE_PATH, reason }], { cause: error });
}
