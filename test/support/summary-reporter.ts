import type { Reporter, TestModule, Vitest } from 'vitest/node';

/**
 * Prints one plain line `N passed, N failed[, N skipped]` at the end of a run. CI reads this line
 * (vitest's own summary is not one of the formats it understands). Failures outside a test count too: a
 * module that did not load, a failing `beforeAll`/`afterAll` (its tests only show as skipped), an
 * unhandled error, and a project that found no test files in a run without file filters (a moved
 * folder or a wrong glob would otherwise silently run nothing).
 */
export default class SummaryReporter implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      const tests = [...mod.children.allTests()];
      // Errors of the module and its suites: collection errors and failing beforeAll/afterAll hooks.
      const hookErrors =
        mod.errors().length +
        [...mod.children.allSuites()].reduce((n, suite) => n + suite.errors().length, 0);
      if (hookErrors > 0) failed += hookErrors;
      else if (mod.state() === 'failed' && tests.length === 0) failed += 1;
      for (const test of tests) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    failed += unhandledErrors.length;
    for (const name of this.#emptyProjects(testModules)) {
      process.stdout.write(`\ntest project "${name}" found no test files\n`);
      failed += 1;
    }
    if (failed > 0) process.exitCode = 1;
    const tail = skipped > 0 ? `, ${skipped} skipped` : '';
    process.stdout.write(`\n${passed} passed, ${failed} failed${tail}\n`);
  }

  /** Projects of this run without a single test module, when no file filter narrowed the run. */
  #emptyProjects(testModules: ReadonlyArray<TestModule>): string[] {
    const vitest = this.#vitest;
    // Internal but stable: the file filters of the command line (`vitest run test/unit/x.test.ts`).
    const filters = (vitest as unknown as { filenamePattern?: string[] } | undefined)?.filenamePattern;
    if (!vitest || (filters && filters.length > 0)) return [];
    const used = new Set(testModules.map((mod) => mod.project.name));
    return vitest.projects.map((project) => project.name).filter((name) => !used.has(name));
  }
}
