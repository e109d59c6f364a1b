/**
 * A throwaway WordPress site from Debian's packages, on loopback: its own MariaDB (a fresh data
 * folder, a Unix socket, no network) and its own Apache (mod_php as www-data, one port on
 * 127.0.0.1, with the caller's `ProxyPass` to a cache endpoint), both stopped by PID and their folder
 * removed on close(). Debian's wp-config.php picks /etc/wordpress/config-pulse-widgets-test.php
 * (written here), which reads the run's folder from the environment, so runs never share a site.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findWordPress } from '../../scripts/wordpress.mjs';
import { freePort } from './free-port.node.ts';

const CONFIG_NAME = 'pulse-widgets-test';
const CONFIG_FILE = `/etc/wordpress/config-${CONFIG_NAME}.php`;
const CONFIG = `<?php
// The throwaway site of pulse-widgets' test/wordpress.node.test.ts (test/helpers/wordpress-site.node.ts):
// each run's folder (database socket, wp-content) comes from its Apache (SetEnv) or PHP CLI environment.
$pulse_wp_dir = isset($_SERVER['PULSE_WP_DIR']) ? $_SERVER['PULSE_WP_DIR'] : getenv('PULSE_WP_DIR');
if (!$pulse_wp_dir || !is_dir($pulse_wp_dir)) {
\theader('HTTP/1.0 404 Not Found');
\texit(1);
}
define('DB_NAME', 'wordpress');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', 'localhost:' . $pulse_wp_dir . '/mysqld.sock');
define('WP_CONTENT_DIR', $pulse_wp_dir . '/wp-content');
define('FS_METHOD', 'direct');
define('DISABLE_WP_CRON', true);
// No mail and no network here: update checks and the like fail at once instead of waiting for a timeout.
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
`;
const SETUP_SCRIPT = fileURLToPath(new URL('wordpress-site.php', import.meta.url));

export type SetupStep =
  | { do: 'install'; url: string; title: string; user: string; password: string; email: string }
  | { do: 'user'; login: string; password: string; role: string }
  | { do: 'plugin'; zip: string; file: string }
  | { do: 'option'; name: string; value: unknown }
  | { do: 'post'; author: string; title: string; content: string }
  | { do: 'template'; theme: string; slug: string; content: string }
  | { do: 'call' | 'output'; function: string; args: unknown[] }
  | { do: 'pattern'; name: string };

export interface WordPressSite {
  /** Without a trailing slash. */
  url: string;
  /** Runs setup steps with WordPress's own functions (test/helpers/wordpress-site.php); one result per step. */
  setup(steps: SetupStep[]): Promise<unknown[]>;
  close(): Promise<void>;
}

interface Finished {
  code: number | null;
  output: string;
}

function finish(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Finished> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

async function succeed(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const result = await finish(command, args, env);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.code}): ${result.output}`);
  return result.output;
}

/** Polls `ready` every 50 ms; fails fast when the process died, with its log. */
async function waitFor(
  what: string,
  ready: () => Promise<boolean> | boolean,
  child: ChildProcess,
  log: () => string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}): ${log()}`);
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${timeoutMs} ms: ${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

function apacheConfig(dir: string, port: number, phpModule: string, proxy: string): string {
  const modules = ['mpm_prefork', 'authz_core', 'dir', 'mime', 'alias', 'env', 'proxy', 'proxy_http'].map(
    (name) => `LoadModule ${name}_module /usr/lib/apache2/modules/mod_${name}.so`,
  );
  return `ServerRoot "${dir}"
DefaultRuntimeDir "${dir}"
PidFile "${dir}/apache.pid"
Mutex file:${dir} default
Listen 127.0.0.1:${port}
ServerName 127.0.0.1
User www-data
Group www-data
ErrorLog "${dir}/apache-error.log"
LogLevel warn
${modules.join('\n')}
LoadModule php_module ${phpModule}
# A process per connection: without keep-alive, a few browser pages that poll every 3 s never hold them all.
KeepAlive Off
StartServers 4
MinSpareServers 4
MaxSpareServers 8
MaxRequestWorkers 16
TypesConfig /etc/mime.types
DirectoryIndex index.php index.html
SetEnv WORDPRESS_CONFIG ${CONFIG_NAME}
SetEnv PULSE_WP_DIR ${dir}
DocumentRoot /usr/share/wordpress
<Directory />
  AllowOverride None
  Require all denied
</Directory>
<Directory /usr/share/wordpress>
  Options FollowSymLinks
  Require all granted
</Directory>
Alias /wp-content ${dir}/wp-content
<Directory ${dir}/wp-content>
  Options FollowSymLinks
  Require all granted
</Directory>
<FilesMatch "\\.php$">
  SetHandler application/x-httpd-php
</FilesMatch>
${proxy}`;
}

/** Starts the site and installs WordPress; `proxy` is Apache configuration that brings the cache endpoint onto the site. */
export async function startWordPressSite(options: {
  title: string;
  admin: { user: string; password: string };
  proxy: string;
}): Promise<WordPressSite> {
  const programs = findWordPress();
  if (!programs) throw new Error("Debian's WordPress is not installed");
  if (!existsSync(CONFIG_FILE) || readFileSync(CONFIG_FILE, 'utf8') !== CONFIG)
    writeFileSync(CONFIG_FILE, CONFIG);

  // www-data (Apache's children) reads the folder and reaches the database socket in it.
  const dir = mkdtempSync(join(tmpdir(), 'pulse-wp-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'wp-content/plugins'), { recursive: true });
  for (const shared of ['themes', 'languages'])
    symlinkSync(`/usr/share/wordpress/wp-content/${shared}`, join(dir, 'wp-content', shared));
  const socket = join(dir, 'mysqld.sock');
  let database: ChildProcess | undefined;
  let apache: ChildProcess | undefined;
  // Apache runs in a group of its own, which a killed test would leave behind: stopped at exit too.
  const stopAtExit = () => {
    for (const child of [apache, database])
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.once('exit', stopAtExit);
  const close = async () => {
    process.off('exit', stopAtExit);
    await stop(apache);
    await stop(database);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const dbFlags = ['--no-defaults', `--datadir=${dir}/db`, '--user=root', '--innodb-log-file-size=8M'];
    await succeed(programs.installDb, [
      ...dbFlags,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--skip-name-resolve',
    ]);
    database = spawn(
      programs.mariadbd,
      [
        ...dbFlags,
        `--socket=${socket}`,
        '--skip-networking',
        `--pid-file=${dir}/mysqld.pid`,
        `--log-error=${dir}/mysqld.log`,
      ],
      { stdio: 'ignore' },
    );
    const dbLog = () => (existsSync(`${dir}/mysqld.log`) ? readFileSync(`${dir}/mysqld.log`, 'utf8') : '');
    await waitFor('mariadbd', () => existsSync(socket), database, dbLog);
    await succeed('mariadb', [
      '--no-defaults',
      `--socket=${socket}`,
      '--user=root',
      '--execute=CREATE DATABASE wordpress',
    ]);

    const port = await freePort();
    writeFileSync(join(dir, 'apache.conf'), apacheConfig(dir, port, programs.phpModule, options.proxy));
    // A group of its own: on stopping, prefork Apache signals its whole process group.
    apache = spawn(programs.apache, ['-f', join(dir, 'apache.conf'), '-DFOREGROUND'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let apacheOutput = '';
    apache.stderr!.on('data', (chunk) => (apacheOutput += chunk));
    const apacheLog = () =>
      apacheOutput +
      (existsSync(`${dir}/apache-error.log`) ? readFileSync(`${dir}/apache-error.log`, 'utf8') : '');
    const url = `http://127.0.0.1:${port}`;
    await waitFor(
      'apache2',
      () =>
        fetch(`${url}/readme.html`).then(
          (response) => response.ok,
          () => false,
        ),
      apache,
      apacheLog,
    );

    const env = {
      ...process.env,
      WORDPRESS_CONFIG: CONFIG_NAME,
      PULSE_WP_DIR: dir,
      HTTP_HOST: `127.0.0.1:${port}`,
    };
    const setup = async (steps: SetupStep[]) =>
      JSON.parse(
        await succeed(
          programs.php,
          ['-d', 'sendmail_path=/bin/true', SETUP_SCRIPT, JSON.stringify(steps)],
          env,
        ),
      ) as unknown[];
    await setup([
      {
        do: 'install',
        url,
        title: options.title,
        user: options.admin.user,
        password: options.admin.password,
        email: 'admin@example.com',
      },
    ]);
    return { url, setup, close };
  } catch (error) {
    await close();
    throw error;
  }
}
