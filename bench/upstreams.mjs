/** The simulated upstreams the benchmarks fill from, in a process of their own (bench/upstream-process.mjs). */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * `count` simulated upstreams (one target each, so their calls are counted apart) in a child process (bench/upstream-process.mjs); `report()` stops
 * them and resolves with each one's calls `{ at, key, status }`.
 */
export async function startUpstreams(
  count,
  { apiKey, latencyMs = 0, stamp = false, rateLimitPerMinute, gzip = false },
) {
  const child = fork(
    fileURLToPath(new URL('upstream-process.mjs', import.meta.url)),
    [JSON.stringify({ apiKey, count, latencyMs, stamp, rateLimitPerMinute, gzip })],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const reply = () =>
    new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`the upstream process exited (${code})`)));
    });
  const { urls } = await reply();
  return {
    urls,
    report: async () => {
      const answer = reply();
      child.send('report');
      return (await answer).calls;
    },
  };
}
