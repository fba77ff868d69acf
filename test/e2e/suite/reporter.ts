// A reporter that prints finished lines: the workbench forwards console text without applying printf-style
// formats, so mocha's own reporters arrive as "%s %s" noise in the harness output.

import Mocha from 'mocha';

const { EVENT_RUN_END, EVENT_TEST_FAIL, EVENT_TEST_PASS, EVENT_TEST_PENDING, EVENT_SUITE_BEGIN } = Mocha.Runner.constants;

export class LineReporter extends Mocha.reporters.Base {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const failures: Array<{ title: string; error: Error }> = [];
    runner.on(EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (suite.title) {
        console.log(`[e2e] ${suite.fullTitle()}`);
      }
    });
    runner.on(EVENT_TEST_PASS, (test: Mocha.Test) => console.log(`[e2e]   ✓ ${test.title} (${test.duration ?? 0} ms)`));
    runner.on(EVENT_TEST_PENDING, (test: Mocha.Test) => console.log(`[e2e]   - ${test.title} (skipped)`));
    runner.on(EVENT_TEST_FAIL, (test: Mocha.Test, error: Error) => {
      failures.push({ title: test.fullTitle(), error });
      console.log(`[e2e]   ✗ ${test.title}: ${error.message}`);
    });
    runner.once(EVENT_RUN_END, () => {
      const stats = runner.stats;
      console.log(
        `[e2e] ${stats?.passes ?? 0} passing, ${stats?.failures ?? 0} failing, ${stats?.pending ?? 0} pending (${stats?.duration ?? 0} ms)`,
      );
      for (const { title, error } of failures) {
        console.log(`[e2e] FAIL ${title}\n${error.stack ?? error.message}`);
      }
    });
  }
}
