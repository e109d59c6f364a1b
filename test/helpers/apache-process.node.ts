/**
 * Starts Debian's apache2 on loopback with a site configuration, in a throwaway ServerRoot with
 * its own PidFile (never the system service, never port 80), and stops it by PID. Node tests.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { APACHE_BINARY, APACHE_MISSING } from '../../scripts/servers.mjs';
import { freePort } from './free-port.node.ts';
import { stopChild, waitUntilListening } from './nginx-process.node.ts';

const MODULES = '/usr/lib/apache2/modules';

export interface ApacheProcess {
  url: string;
  close(): Promise<void>;
}

/**
 * `site` goes inside the server's configuration, after the modules below are loaded (mod_deflate
 * compresses JSON, as on many sites); `files` are served from its DocumentRoot.
 */
export async function startApache(site: string, files: Record<string, string> = {}): Promise<ApacheProcess> {
  if (!APACHE_BINARY) throw new Error(`${APACHE_MISSING}`);
  const root = await mkdtemp(join(tmpdir(), 'pulse-apache-'));
  // The workers run as www-data and read the site from here.
  await chmod(root, 0o755);
  const port = await freePort();
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, 'site', path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }
  const modules = [
    'mpm_event',
    'authz_core',
    'dir',
    'mime',
    'proxy',
    'proxy_http',
    'headers',
    'env',
    'filter',
    'deflate',
  ];
  await writeFile(
    join(root, 'httpd.conf'),
    `
ServerRoot ${root}
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile ${join(root, 'httpd.pid')}
DefaultRuntimeDir ${root}
Mutex file:${root} default
ErrorLog ${join(root, 'error.log')}
LogLevel warn
${modules.map((name) => `LoadModule ${name}_module ${MODULES}/mod_${name}.so`).join('\n')}
User www-data
Group www-data
StartServers 1
ServerLimit 1
ThreadsPerChild 25
MaxRequestWorkers 25
DocumentRoot ${join(root, 'site')}
<Directory ${join(root, 'site')}>
    Require all granted
</Directory>
DirectoryIndex index.html
TypesConfig /dev/null
AddOutputFilterByType DEFLATE text/html text/plain application/json
${site}
`,
  );
  const check = spawnSync(APACHE_BINARY, ['-t', '-f', join(root, 'httpd.conf')], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`apache2 rejected the configuration: ${check.stderr}`);
  const child = spawn(APACHE_BINARY, ['-f', join(root, 'httpd.conf'), '-DFOREGROUND'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilListening(
    url,
    () => child.exitCode !== null,
    async () => `apache2: ${stderr}${await readFile(join(root, 'error.log'), 'utf8').catch(() => '')}`,
  );
  return {
    url,
    close: async () => {
      await stopChild(child, 'SIGTERM');
      await rm(root, { recursive: true, force: true });
    },
  };
}
