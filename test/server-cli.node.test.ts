/**
 * `pulse-widgets serve`: settings from environment and flags, one line per configuration error,
 * and an end-to-end run of the real CLI process in demo mode.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { quickstatsResponseSchema } from '../src/api/index.ts';
import { readSettings, type ServeSettings } from '../src/server/config/settings.ts';
import { DEMO_HOSTS } from '../src/simulator/index.ts';
import { jsonLogLines, upstreamLogLines } from './helpers/cache-harness.node.ts';
import { entryArgs } from './helpers/entry-command.node.ts';
import { cleanEnv } from './helpers/serve-process.node.ts';

/** The CLI from source (the packed, compiled one is run by test/packed-package.node.test.ts). */
const CLI = new URL('../src/server/cli.ts', import.meta.url).pathname;

function settingsOf(argv: string[], env: Record<string, string> = {}): ServeSettings {
  const result = readSettings(argv, env);
  assert.ok('settings' in result, JSON.stringify(result));
  return result.settings;
}

function errorsOf(argv: string[], env: Record<string, string> = {}): string[] {
  const result = readSettings(argv, env);
  assert.ok('errors' in result, `expected errors, got ${JSON.stringify(result)}`);
  return result.errors;
}

describe('settings', () => {
  test('demo mode by default, with the documented defaults', () => {
    const settings = settingsOf(['serve']);
    assert.equal(settings.upstream, undefined);
    assert.equal(settings.port, 8080);
    assert.equal(settings.host, '127.0.0.1');
    assert.equal(settings.staleWindowMs, 300_000);
    assert.equal(settings.clientLimit, 60_000);
    assert.equal(settings.rawDataPersonalFields, false);
    assert.deepEqual(settings.allowedOrigins, []);
  });

  test('environment, and flags of the same names winning over it', () => {
    const env = {
      PULSE_UPSTREAM: 'https://api.example.com',
      PULSE_API_KEY: 'k-123',
      PULSE_HOSTS: 'a.example, B.example',
      PORT: '9000',
      PULSE_ALLOWED_ORIGINS: 'https://news.example.com',
    };
    const fromEnv = settingsOf(['serve'], env);
    assert.equal(fromEnv.upstream?.href, 'https://api.example.com/');
    assert.equal(fromEnv.apiKey, 'k-123');
    assert.deepEqual(fromEnv.hosts, ['a.example', 'b.example']);
    assert.equal(fromEnv.port, 9000);
    const flagged = settingsOf(
      [
        'serve',
        '--port',
        '0',
        '--hosts',
        'c.example',
        '--stale-seconds',
        '60',
        '--raw-personal-fields',
        '--prefix',
        '/pulse/',
        '--static',
        '/srv/site',
      ],
      env,
    );
    assert.equal(flagged.port, 0);
    assert.deepEqual(flagged.hosts, ['c.example']);
    assert.equal(flagged.staleWindowMs, 60_000);
    assert.equal(flagged.rawDataPersonalFields, true);
    assert.equal(flagged.prefix, '/pulse');
    assert.equal(flagged.staticDir, '/srv/site');
  });

  test('the shared tier: PULSE_REDIS_URL and PULSE_INSTANCES (a password only in the environment)', () => {
    assert.equal(settingsOf(['serve']).redisUrl, undefined);
    assert.equal(settingsOf(['serve']).instances, 3);
    const shared = settingsOf(['serve'], {
      PULSE_REDIS_URL: 'rediss://:s3cret@redis.internal:6380/2',
      PULSE_INSTANCES: '4',
    });
    assert.equal(shared.redisUrl, 'rediss://:s3cret@redis.internal:6380/2');
    assert.equal(shared.instances, 4);
    assert.equal(
      settingsOf(['serve', '--redis-url', 'redis://10.0.0.5:6379', '--instances', '2']).instances,
      2,
    );
    const cluster = 'redis+cluster://10.0.0.1:7000,10.0.0.2:7000';
    assert.equal(settingsOf(['serve', '--redis-url', cluster]).redisUrl, cluster);
  });

  test('--workers: one per core by default, PULSE_WORKERS or the flag', () => {
    assert.equal(settingsOf(['serve']).workers, availableParallelism());
    assert.equal(settingsOf(['serve'], { PULSE_WORKERS: '3' }).workers, 3);
    assert.equal(settingsOf(['serve', '--workers', '1'], { PULSE_WORKERS: '3' }).workers, 1);
  });

  test('the key from a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pulse-key-'));
    after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'key'), 'file-key-9\n');
    const settings = settingsOf([
      'serve',
      '--api-key-file',
      join(dir, 'key'),
      '--upstream',
      'https://api.example.com',
      '--hosts',
      'a.example',
    ]);
    assert.equal(settings.apiKey, 'file-key-9');
  });

  const problems: [string, string[], Record<string, string>, RegExp][] = [
    [
      'upstream without a key',
      ['serve'],
      { PULSE_UPSTREAM: 'https://api.example.com', PULSE_HOSTS: 'a.example' },
      /^PULSE_UPSTREAM is set but no key/,
    ],
    [
      'upstream without hosts',
      ['serve'],
      { PULSE_UPSTREAM: 'https://api.example.com', PULSE_API_KEY: 'k' },
      /PULSE_HOSTS is not/,
    ],
    [
      'a bad upstream URL',
      ['serve', '--upstream', 'not a url'],
      { PULSE_API_KEY: 'k', PULSE_HOSTS: 'a.example' },
      /^PULSE_UPSTREAM \(--upstream\): upstream "not a url" is not a URL/,
    ],
    [
      'plain http to a remote upstream',
      ['serve'],
      { PULSE_UPSTREAM: 'http://api.example.com', PULSE_API_KEY: 'k', PULSE_HOSTS: 'a.example' },
      /must use https/,
    ],
    [
      'a bad port',
      ['serve', '--port', '80000'],
      {},
      /^PORT \(--port\): must be a whole number from 0 to 65535/,
    ],
    ['a port that is not a number', ['serve'], { PORT: 'http' }, /^PORT \(--port\)/],
    [
      'a bad host list',
      ['serve', '--hosts', 'ok.example,bad host'],
      {},
      /^PULSE_HOSTS \(--hosts\): host "bad host"/,
    ],
    [
      'a bad origin',
      ['serve', '--allowed-origins', 'news.example.com'],
      {},
      /^PULSE_ALLOWED_ORIGINS \(--allowed-origins\)/,
    ],
    ['an unknown flag', ['serve', '--colour'], {}, /Unknown option '--colour'/],
    ['no command', [], {}, /expected the command "serve"/],
    [
      'a key with a line break',
      ['serve'],
      { PULSE_API_KEY: 'abc\r\nX-Evil: 1' },
      /^PULSE_API_KEY: the API key must be printable/,
    ],
    [
      'a missing key file',
      ['serve', '--api-key-file', '/nonexistent/key'],
      {},
      /^PULSE_API_KEY_FILE \(--api-key-file\): ENOENT/,
    ],
    [
      'a Redis URL that is not redis://',
      ['serve'],
      { PULSE_REDIS_URL: 'http://127.0.0.1:6379' },
      /^PULSE_REDIS_URL \(--redis-url\): the Redis URL must start with redis:\/\//,
    ],
    [
      'a Redis password in a flag',
      ['serve', '--redis-url', 'redis://:hunter2@127.0.0.1:6379'],
      {},
      /^--redis-url must not carry a password/,
    ],
    [
      'a bad instance count',
      ['serve'],
      { PULSE_INSTANCES: 'three' },
      /^PULSE_INSTANCES \(--instances\): must be a whole number/,
    ],
    [
      'a bad worker count',
      ['serve', '--workers', 'all'],
      {},
      /^PULSE_WORKERS \(--workers\): must be a whole number from 0 to 256/,
    ],
    [
      'a Redis Cluster node without a port',
      ['serve'],
      { PULSE_REDIS_URL: 'redis+cluster://10.0.0.1:7000,10.0.0.2' },
      /^PULSE_REDIS_URL \(--redis-url\): the Redis Cluster node "10.0.0.2" is not host:port/,
    ],
    [
      'a Redis Cluster password in a flag',
      ['serve', '--redis-url', 'redis+cluster://:hunter2@10.0.0.1:7000'],
      {},
      /^--redis-url must not carry a password/,
    ],
  ];
  for (const [name, argv, env, message] of problems) {
    test(`one clear line for ${name}`, () => {
      const errors = errorsOf(argv, env);
      assert.ok(
        errors.some((line) => message.test(line)),
        errors.join('\n'),
      );
      for (const line of errors) assert.doesNotMatch(line, /\n/);
    });
  }

  test('--api-key is refused without echoing the key', () => {
    for (const argv of [
      ['serve', '--api-key', 'sekrit-77'],
      ['serve', '--api-key=sekrit-77'],
    ]) {
      const [line, ...rest] = errorsOf(argv);
      assert.equal(rest.length, 0);
      assert.match(line!, /--api-key is not accepted.*PULSE_API_KEY/);
      assert.doesNotMatch(line!, /sekrit-77/);
    }
  });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(
  argv: string[],
  env: Record<string, string>,
): { child: ReturnType<typeof spawn>; done: Promise<Run>; output: () => string } {
  const child = spawn(process.execPath, [...entryArgs(CLI), ...argv], {
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<Run>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done, output: () => stdout };
}

describe('the CLI process', () => {
  test('a configuration error: one line on stderr, non-zero exit, nothing started', async () => {
    const run = await runCli(['serve'], {
      PULSE_UPSTREAM: 'https://api.example.com',
      PULSE_HOSTS: 'a.example',
      PORT: '0',
    }).done;
    assert.equal(run.code, 2);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(run.stderr, /^pulse-widgets: PULSE_UPSTREAM is set but no key/);
    assert.equal(run.stdout, '');
  });

  test('end to end in demo mode: serves simulator data through the cache, the key never shows', async () => {
    const demoKey = 'demo-key-e2e-4d1b8c0f';
    const { child, done, output } = runCli(['serve', '--log-level', 'info'], {
      PORT: '0',
      PULSE_API_KEY: demoKey,
    });
    after(() => {
      if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
    });
    // However long a busy machine takes to start it (the test's own timeout ends a hang): a
    // 20 s deadline failed while other work kept both cores busy.
    let match: RegExpExecArray | null = null;
    while (!(match = /demo mode.*listening on (http:\/\/[\d.]+:\d+)\//.exec(output()))) {
      assert.ok(child.exitCode === null, `no start line: ${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const base = match[1]!;
    const seen: string[] = [];
    const get = async (path: string, init?: RequestInit) => {
      const response = await fetch(`${base}${path}`, init);
      const text = await response.text();
      response.headers.forEach((value, name) => seen.push(`${name}: ${value}`));
      seen.push(text);
      return { response, text };
    };
    const host = DEMO_HOSTS[0]!;
    const live = await get(`/live/quickstats/v4/?host=${host}`);
    assert.equal(live.response.status, 200);
    assert.ok(quickstatsResponseSchema.safeParse(JSON.parse(live.text)).success);
    assert.match(live.response.headers.get('cache-status')!, /^pulse-widgets; fwd=miss/);
    assert.match(
      (await get(`/live/quickstats/v4/?host=${host}`)).response.headers.get('cache-status')!,
      /^pulse-widgets; hit/,
    );
    const video = await get(`/live/quickstats/v4/?host=video@${host}`);
    assert.equal(video.response.status, 200, 'demo mode serves the video@ variant of each site');
    assert.ok(quickstatsResponseSchema.safeParse(JSON.parse(video.text)).success);
    assert.equal(
      (await get(`/live/toppages/v3/?host=${host}&limit=5&apikey=${demoKey}`)).response.status,
      400,
    );
    assert.equal((await get(`/live/toppages/v3/?host=not-served.example`)).response.status, 403);
    assert.match((await get('/')).text, /\/live\/toppages\/v3\/\?host=/);
    assert.equal((await get('/healthz')).response.status, 200);
    const askedAt = Date.now();
    const metrics = (await get('/metrics')).text;
    const answeredAt = Date.now();
    process.kill(child.pid!, 'SIGTERM');
    const run = await done;
    assert.equal(run.code, 0);
    // The history recorder samples each served host's quickstats (all_platforms=1) a second
    // into every minute of the real clock: a run across that second has calls of its own.
    // (Counted whole, a run slowed past a minute saw 6 quickstats calls where the test made 2.)
    const quickstatsCalls = upstreamLogLines(jsonLogLines(run.stdout)).filter(
      (call) => call.route === 'quickstats' && call.status === 200,
    );
    assert.deepEqual(
      quickstatsCalls
        .map((call) => new URLSearchParams(call.query))
        .filter((query) => !query.has('all_platforms'))
        .map((query) => query.get('host')),
      [host, `video@${host}`],
      "one call for each of the test's queries: the second poll was a hit",
    );
    // /metrics counts every call logged before it was asked, and none after it answered.
    const counted = Number(
      /pulse_upstream_calls_total\{route="quickstats",status="200"\} (\d+)/.exec(metrics)?.[1],
    );
    assert.ok(
      quickstatsCalls.filter((call) => call.time < askedAt).length <= counted &&
        counted <= quickstatsCalls.filter((call) => call.time <= answeredAt).length,
      `/metrics counted ${counted} quickstats calls`,
    );
    for (const text of [...seen, run.stdout, run.stderr])
      assert.ok(!text.includes(demoKey), `demo key leaked: ${text.slice(0, 120)}`);
  });
});
