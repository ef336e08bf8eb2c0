#!/usr/bin/env node
// `npm test`: bootstrap, PostgreSQL, then vitest (extra arguments pass
// through, e.g. a path filter). The very last stdout line is `N passed, M failed`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from './bootstrap.mjs';
import { ensurePostgres } from './ensure-postgres.mjs';
import { repoRoot } from './repo-root.mjs';
import { runCommand } from './run-command.mjs';
import { combineSummaries, summarizeReport, summaryLine } from './test-summary.mjs';

const VITEST = join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');

async function runVitest(argv, dir) {
  const output = join(dir, 'report.json');
  const args = [VITEST, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${output}`, ...argv];
  const code = await runCommand(process.execPath, args, { cwd: repoRoot });
  let report = null;
  try {
    report = JSON.parse(readFileSync(output, 'utf8'));
  } catch {
    process.stderr.write('postern: vitest wrote no readable report; counting the run as failed\n');
  }
  return summarizeReport(report, code);
}

async function main(argv) {
  const summaries = [];
  try {
    await bootstrap();
    await ensurePostgres();
    const dir = mkdtempSync(join(tmpdir(), 'postern-test-'));
    try {
      summaries.push(await runVitest(argv, dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } catch (err) {
    process.stderr.write(`postern: ${err instanceof Error ? err.message : err}\n`);
    summaries.push({ passed: 0, failed: 1 });
  }
  const total = combineSummaries(summaries);
  // Nothing ran at all is not a pass.
  if (total.passed === 0 && total.failed === 0) total.failed = 1;
  process.stdout.write(`${summaryLine(total)}\n`);
  return total.failed === 0 && total.passed > 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
