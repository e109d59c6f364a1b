/**
 * `npm test`: type check, Node tests, browser tests, every Storybook story in Chromium. Before the
 * first test that needs a browser (some Node tests drive the three engines too: the CMS page under
 * CSP, the demo, the cross-origin poll) it makes sure Chromium, Firefox and WebKit exist,
 * installing the missing Debian packages when it runs as root with apt-get, and otherwise stops
 * with one line per missing engine saying how to get it. Debian's WordPress (the plugin test) is
 * installed the same way when it can be; its test skips with the reason otherwise.
 */
import { spawnSync } from 'node:child_process';
import { DEBIAN_PACKAGES, findEngine, installHint, PATH_VARIABLES, selectedEngines } from './browsers.mjs';
import { findWordPress, WORDPRESS_PACKAGES } from './wordpress.mjs';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  return result.status ?? 1;
}

function canApt() {
  return process.getuid?.() === 0 && run('sh', ['-c', 'command -v apt-get >/dev/null'], { stdio: 'ignore' }) === 0;
}

function aptInstall(packages) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (run('apt-get', ['install', '-y', '-q', ...packages], { env }) !== 0) {
    run('apt-get', ['update', '-q'], { env });
    run('apt-get', ['install', '-y', '-q', ...packages], { env });
  }
}

function ensureBrowsers() {
  const missing = () => selectedEngines().filter((engine) => !findEngine(engine));
  if (missing().length === 0) return true;
  // An engine whose path variable points nowhere is a typo to fix, not a package to install.
  const packages = missing().filter((engine) => !process.env[PATH_VARIABLES[engine]]).flatMap((engine) => DEBIAN_PACKAGES[engine]);
  if (canApt() && packages.length > 0) {
    console.log(`Missing ${missing().join(', ')}: installing Debian's ${packages.join(' ')} with apt-get…`);
    aptInstall(packages);
  }
  for (const engine of missing()) console.error(installHint(engine));
  return missing().length === 0;
}

/**
 * Debian's WordPress for the plugin test, once per machine (root with apt-get). Never fails the
 * run: without it test/wordpress.node.test.ts skips, saying why in one line.
 */
function ensureWordPress() {
  if (!findWordPress() && canApt()) {
    console.log(`Installing Debian's ${WORDPRESS_PACKAGES.join(' ')} with apt-get for the WordPress plugin test…`);
    aptInstall(WORDPRESS_PACKAGES);
  }
  return 0;
}

const steps = [
  ['typecheck', () => run('npm', ['run', '--silent', 'typecheck'])],
  ['browsers', () => (ensureBrowsers() ? 0 : 1)],
  ['wordpress', ensureWordPress],
  ['node tests', () => run('npm', ['run', '--silent', 'test:node'])],
  ['browser tests', () => run('npm', ['run', '--silent', 'test:browser'])],
  ['storybook smoke', () => run('npm', ['run', '--silent', 'smoke-storybook'])],
];

for (const [name, step] of steps) {
  console.log(`\n▶ ${name}`);
  const started = performance.now();
  const status = step();
  console.log(`  ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (status !== 0) {
    console.error(`✖ ${name} failed`);
    process.exit(status);
  }
}
console.log('\n✔ all test steps passed');
