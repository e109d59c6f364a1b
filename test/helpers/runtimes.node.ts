/**
 * Bun and Deno for the tests that run the packed package in them: their binaries come from the
 * npm registry's `bun` and `deno` packages (each carries its binary in a per-platform optional
 * dependency, so no install script and no other download is needed), installed once into
 * node_modules/.cache/pulse-runtimes and found there; `BUN_PATH` / `DENO_PATH` point at others.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/pulse-runtimes/', import.meta.url));
/** The versions installed; the checks below are written against these. */
const PACKAGES = ['bun@1.4.5', 'deno@2.9.6'];

export type Runtime = 'bun' | 'deno';

/** Each runtime's binary, or why it is missing (one line, for the skip message). */
export type Runtimes = Record<Runtime, { binary: string } | { missing: string }>;

/** The platform binaries the packages carry, as installed under `node_modules`. */
function candidates(runtime: Runtime): string[] {
  const scope = join(CACHE, 'node_modules', runtime === 'bun' ? '@oven' : '@deno');
  if (!existsSync(scope)) return [];
  return readdirSync(scope)
    .map((name) => (runtime === 'bun' ? join(scope, name, 'bin', 'bun') : join(scope, name, 'deno')))
    .filter((path) => existsSync(path));
}

async function working(binary: string): Promise<boolean> {
  try {
    await run(binary, ['--version'], { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** Installs the runtimes into the cache folder if they are not there yet, and finds a binary of each that runs here. */
export async function findRuntimes(): Promise<Runtimes> {
  const given = { bun: process.env.BUN_PATH, deno: process.env.DENO_PATH };
  let installError = '';
  if (!given.bun || !given.deno) {
    if (candidates('bun').length === 0 || candidates('deno').length === 0) {
      try {
        await run(
          'npm',
          [
            'install',
            '--prefix',
            CACHE,
            '--no-save',
            '--ignore-scripts',
            '--prefer-offline',
            '--no-audit',
            '--no-fund',
            '--loglevel=error',
            ...PACKAGES,
          ],
          { timeout: 300_000 },
        );
      } catch (error) {
        installError = `: npm install ${PACKAGES.join(' ')} failed (${
          String((error as { stderr?: string }).stderr ?? error)
            .trim()
            .split('\n')[0]
        })`;
      }
    }
  }
  const find = async (runtime: Runtime): Promise<Runtimes[Runtime]> => {
    const listed = given[runtime] ? [given[runtime]!] : candidates(runtime);
    for (const binary of listed) if (await working(binary)) return { binary };
    return {
      missing: `no ${runtime} binary runs on this machine${installError} (set ${runtime.toUpperCase()}_PATH)`,
    };
  };
  const [bun, deno] = await Promise.all([find('bun'), find('deno')]);
  return { bun, deno };
}

/**
 * The script each runtime runs in the consumer project: the simulator and the cache endpoint
 * from the packed package, each on the runtime's own HTTP server on 127.0.0.1, the peer address
 * handed to the per-IP limit as docs/cache-endpoint.md shows. It prints `listening on <url>`.
 */
export const RUNTIME_SCRIPTS: Record<Runtime, string> = {
  bun: `import { createCacheHandler, createLogger } from 'pulse-widgets/server';
import { createUpstreamHandler, DEMO_HOSTS } from 'pulse-widgets/simulator';

const apiKey = 'runtime-demo-key';
const upstream = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createUpstreamHandler({ apiKey, hosts: DEMO_HOSTS }) });
const cache = createCacheHandler({
  upstream: \`http://127.0.0.1:\${upstream.port}\`, apiKey, hosts: [...DEMO_HOSTS], clientLimit: 3, logger: createLogger('silent'),
  clientIp: (request) => server.requestIP(request)?.address,
});
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: cache.handle });
console.log(\`\${Bun.version}: listening on http://127.0.0.1:\${server.port}\`);
`,
  deno: `import { createCacheHandler, createLogger } from 'pulse-widgets/server';
import { createUpstreamHandler, DEMO_HOSTS } from 'pulse-widgets/simulator';

const apiKey = 'runtime-demo-key';
const upstream = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, createUpstreamHandler({ apiKey, hosts: DEMO_HOSTS }));
const peers = new WeakMap();
const cache = createCacheHandler({
  upstream: \`http://127.0.0.1:\${upstream.addr.port}\`, apiKey, hosts: [...DEMO_HOSTS], clientLimit: 3, logger: createLogger('silent'),
  clientIp: (request) => peers.get(request),
});
Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(\`\${Deno.version.deno}: listening on http://127.0.0.1:\${port}\`) }, (request, info) => {
  peers.set(request, info.remoteAddr.hostname);
  return cache.handle(request);
});
`,
};

/** How to run `script` (a file in `cwd`) with a runtime's binary. */
export function runtimeCommand(runtime: Runtime, binary: string, script: string): [string, string[]] {
  return runtime === 'bun'
    ? [binary, ['run', script]]
    : [binary, ['run', '--allow-net=127.0.0.1', '--allow-env', '--allow-read', '--allow-sys', script]];
}
