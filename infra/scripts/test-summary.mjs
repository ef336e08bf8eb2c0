// Turns vitest JSON reports into the closing `N passed, M failed` line. A run
// that crashed, failed to load a file, or wrote no report never reads as
// `0 failed`.

/** `report` is vitest's JSON report (or null when none was written); `exitCode` is vitest's. */
export function summarizeReport(report, exitCode) {
  if (!report || typeof report !== 'object') return { passed: 0, failed: 1 };
  const passed = Number(report.numPassedTests) || 0;
  let failed = Number(report.numFailedTests) || 0;
  // A file that failed to load (syntax error, failing import, a throwing hook) has no tests to count.
  const files = Array.isArray(report.testResults) ? report.testResults : [];
  failed += files.filter((file) => file.status === 'failed' && (file.assertionResults?.length ?? 0) === 0).length;
  if (failed === 0 && (Number(report.numFailedTestSuites) || 0) > 0) failed = 1;
  if (failed === 0 && (exitCode !== 0 || report.success === false)) failed = 1;
  return { passed, failed };
}

export function combineSummaries(summaries) {
  return summaries.reduce((sum, one) => ({ passed: sum.passed + one.passed, failed: sum.failed + one.failed }), { passed: 0, failed: 0 });
}

export function summaryLine({ passed, failed }) {
  return `${passed} passed, ${failed} failed`;
}
