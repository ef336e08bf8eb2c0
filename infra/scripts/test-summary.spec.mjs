import { describe, expect, it } from 'vitest';
import { combineSummaries, summarizeReport, summaryLine } from './test-summary.mjs';

const file = (status, tests) => ({ status, assertionResults: Array.from({ length: tests }, () => ({ status })) });

describe('summarizeReport', () => {
  it('counts passed and failed tests', () => {
    const report = { numPassedTests: 7, numFailedTests: 2, numFailedTestSuites: 1, success: false, testResults: [file('failed', 9)] };
    expect(summarizeReport(report, 1)).toEqual({ passed: 7, failed: 2 });
  });

  it('counts a file that failed to load as a failure', () => {
    const report = { numPassedTests: 3, numFailedTests: 0, numFailedTestSuites: 1, success: false, testResults: [file('passed', 3), file('failed', 0)] };
    expect(summarizeReport(report, 1)).toEqual({ passed: 3, failed: 1 });
  });

  it('never reports 0 failed for a missing report or a non-zero exit', () => {
    expect(summarizeReport(null, 1)).toEqual({ passed: 0, failed: 1 });
    expect(summarizeReport({ numPassedTests: 4, numFailedTests: 0, testResults: [] }, 1).failed).toBe(1);
    expect(summarizeReport({ numPassedTests: 4, numFailedTests: 0, success: false, testResults: [] }, 0).failed).toBe(1);
  });

  it('reports a clean run as clean', () => {
    expect(summarizeReport({ numPassedTests: 4, numFailedTests: 0, numFailedTestSuites: 0, success: true, testResults: [file('passed', 4)] }, 0)).toEqual({ passed: 4, failed: 0 });
  });

  it('adds runs up and prints the closing line', () => {
    expect(summaryLine(combineSummaries([{ passed: 2, failed: 1 }, { passed: 5, failed: 0 }]))).toBe('7 passed, 1 failed');
  });
});
