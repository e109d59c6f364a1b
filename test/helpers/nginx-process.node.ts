/**
 * Starts Debian's nginx on loopback with the recipe from examples/nginx/ (or another site config
 * with the same placeholders), one worker, in a throwaway prefix directory, and stops it by PID.
 * Node tests and bench/cache.mjs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NGINX_BINARY, NGINX_MISSING } from '../../scripts/servers.mjs';
import { freePort } from './free-port.node.ts';

const RECIPE = new URL('../../examples/nginx/pulse-cache.conf', import.meta.url);
export const RECIPE_PATH = fileURLToPath(RECIPE);

export interface NginxProcess {
  url: string;
  close(): Promise<void>;
}

export interface NginxOptions {
  upstream: string;
  apiKey: string;
  hosts: readonly string[];
  /** The site config (placeholders __LISTEN__, __UPSTREAM__, __CACHE_DIR__); default the recipe. */
  site?: string;
  /** Pin the worker to this CPU (`worker_cpu_affinity`), for one-core benchmarks. */
  cpu?: number;
}

export async function startNginx(options: NginxOptions): Promise<NginxProcess> {
  if (!NGINX_BINARY) throw new Error(`${NGINX_MISSING}`);
  const prefix = await mkdtemp(join(tmpdir(), 'pulse-nginx-'));
  const port = await freePort();
  const recipe = (options.site ?? (await readFile(RECIPE, 'utf8')))
    .replaceAll('__LISTEN__', `127.0.0.1:${port}`)
    .replaceAll('__UPSTREAM__', options.upstream)
    .replaceAll('__CACHE_DIR__', join(prefix, 'cache'));
  await writeFile(join(prefix, 'pulse-cache.conf'), recipe);
  await writeFile(join(prefix, 'pulse-key.conf'), `set $pulse_key "${options.apiKey}";\n`, { mode: 0o600 });
  await writeFile(
    join(prefix, 'pulse-hosts.conf'),
    `${options.hosts.map((host) => `${host} 1;`).join('\n')}\n`,
  );
  await writeFile(
    join(prefix, 'nginx.conf'),
    `
daemon off;
master_process on;
worker_processes 1;
${options.cpu === undefined ? '' : `worker_cpu_affinity ${(1 << options.cpu).toString(2)};`}
user root;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  keepalive_requests 1000000;
  client_body_temp_path ${join(prefix, 'client_body')};
  proxy_temp_path ${join(prefix, 'proxy')};
  fastcgi_temp_path ${join(prefix, 'fastcgi')};
  uwsgi_temp_path ${join(prefix, 'uwsgi')};
  scgi_temp_path ${join(prefix, 'scgi')};
  include ${join(prefix, 'pulse-cache.conf')};
}
`,
  );
  const check = spawnSync(NGINX_BINARY, ['-t', '-p', prefix, '-c', join(prefix, 'nginx.conf')], {
    encoding: 'utf8',
  });
  if (check.status !== 0) throw new Error(`nginx rejected the recipe: ${check.stderr}`);
  const child = spawn(NGINX_BINARY, ['-p', prefix, '-c', join(prefix, 'nginx.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilListening(
    url,
    () => child.exitCode !== null,
    () => `nginx: ${stderr}`,
  );
  return {
    url,
    close: async () => {
      await stopChild(child, 'SIGQUIT');
      await rm(prefix, { recursive: true, force: true });
    },
  };
}

/** Sends `signal` to a server still running and resolves once it exited (the web servers here stop gracefully on their own signal). */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** Resolves once `url` answers, or throws with the server's own words once it exited or after 5 s. */
export async function waitUntilListening(
  url: string,
  exited: () => boolean,
  stderr: () => string | Promise<string>,
): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (exited()) throw new Error(`exited: ${await stderr()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`${url} did not start listening within 5 s`);
}
