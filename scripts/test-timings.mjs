/**
 * A web-test-runner reporter that writes how long each test file took in each engine, from its
 * page starting to its results collected, and its slowest tests: where the browser suite's time
 * goes. `PULSE_TIMINGS=timings.tsv npx web-test-runner` turns it on (see web-test-runner.config.mjs).
 *
 * Lines: `file<TAB>engine<TAB>seconds<TAB>started at (s into the run)`, then `# slowest tests`.
 */
import { writeFileSync } from 'node:fs';

export function timingsReporter(path) {
  const runStarted = Date.now();
  const pageStarted = new Map();
  const files = [];
  const tests = [];
  const seconds = (ms) => (ms / 1000).toFixed(1);
  const collect = (suite, engine, file, prefix = '') => {
    for (const test of suite?.tests ?? [])
      if (test.duration !== undefined) tests.push([test.duration, engine, file, `${prefix}${test.name}`]);
    for (const child of suite?.suites ?? []) collect(child, engine, file, `${prefix}${child.name} > `);
  };
  return {
    start({ sessions }) {
      sessions.on('session-status-updated', (session) => {
        if (session.status === 'INITIALIZING') pageStarted.set(session.id, Date.now());
        if (session.status !== 'FINISHED') return;
        const started = pageStarted.get(session.id) ?? runStarted;
        const file = session.testFile.slice(session.testFile.lastIndexOf('/test/') + 1);
        files.push([
          file,
          session.browser.name,
          seconds(Date.now() - started),
          seconds(started - runStarted),
        ]);
        collect(session.testResults, session.browser.name, file);
      });
    },
    stop() {
      const slowest = tests
        .sort((a, b) => b[0] - a[0])
        .slice(0, 25)
        .map(([ms, engine, file, name]) => `# ${seconds(ms)}\t${engine}\t${file}\t${name}`);
      const lines = [
        ...files.sort((a, b) => a[0].localeCompare(b[0])).map((row) => row.join('\t')),
        `# whole run ${seconds(Date.now() - runStarted)} s`,
        '# slowest tests',
        ...slowest,
      ];
      writeFileSync(path, `${lines.join('\n')}\n`);
    },
  };
}
