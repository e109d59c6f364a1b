/**
 * `npm test`: type check, Node tests, browser tests, every Storybook story in Chromium. Before the
 * first test that needs a browser (some Node tests drive Chromium too: the CMS page under CSP, the
 * CDN files) it makes sure a Chromium exists, installing Debian's package when it runs as root
 * with apt-get, and otherwise stops with one line saying how to get one.
 */
import { spawnSync } from 'node:child_process';
import { findChromium } from './chromium.mjs';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  return result.status ?? 1;
}

function ensureChromium() {
  if (findChromium()) return true;
  if (process.env.CHROME_PATH) {
    console.error(`CHROME_PATH=${process.env.CHROME_PATH} does not exist: point it at a Chromium or unset it.`);
    return false;
  }
  const canApt = process.getuid?.() === 0 && run('sh', ['-c', 'command -v apt-get >/dev/null'], { stdio: 'ignore' }) === 0;
  if (canApt) {
    console.log('No Chromium found: installing Debian\'s chromium package with apt-get…');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (run('apt-get', ['install', '-y', '-q', 'chromium'], { env }) !== 0) {
      run('apt-get', ['update', '-q'], { env });
      run('apt-get', ['install', '-y', '-q', 'chromium'], { env });
    }
    if (findChromium()) return true;
  }
  console.error('No Chromium found: install one (Debian: `sudo apt-get install chromium`) or set CHROME_PATH to its binary.');
  return false;
}

const steps = [
  ['typecheck', () => run('npm', ['run', '--silent', 'typecheck'])],
  ['browsers', () => (ensureChromium() ? 0 : 1)],
  ['node tests', () => run('npm', ['run', '--silent', 'test:node'])],
  ['browser tests', () => run('npm', ['run', '--silent', 'test:browser'])],
  ['storybook smoke', () => run('npm', ['run', '--silent', 'smoke-storybook'])],
];

for (const [name, step] of steps) {
  console.log(`\n▶ ${name}`);
  const status = step();
  if (status !== 0) {
    console.error(`✖ ${name} failed`);
    process.exit(status);
  }
}
console.log('\n✔ all test steps passed');
