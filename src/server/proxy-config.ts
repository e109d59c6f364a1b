/**
 * `pulse-widgets proxy-config apache|nginx`: the web server configuration that puts the cache
 * endpoint on a CMS's own origin, under one prefix, in front of `pulse-widgets serve --prefix`.
 * One prefix carries every path the elements ask for (`/live/…`, `/history/v1/`, `/mab/…`), so
 * none of them can shadow a page of the site; `/metrics` stays private; the reader's address
 * reaches the per-IP limit through `X-Forwarded-For` (with `--trust-proxy` on the endpoint); and
 * answers pass as sent: the endpoint's stored gzip/br bodies, ETags and Age, not re-compressed.
 */
import { parseArgs } from 'node:util';
import { ConfigError } from '../runtime/config-error.ts';
import { checkPrefix } from './config/checks.ts';

export type ProxyServer = 'apache' | 'nginx';

export interface ProxyConfigOptions {
  /** Where the site mounts the endpoint, e.g. `/pulse` (the endpoint's `--prefix`). */
  prefix: string;
  /** The endpoint's base URL as the web server reaches it, e.g. `http://127.0.0.1:8080`. */
  upstream: URL;
}

export const PROXY_CONFIG_USAGE = `Usage: pulse-widgets proxy-config apache|nginx [--prefix /pulse] [--upstream http://127.0.0.1:8080]

Prints the configuration that serves the cache endpoint on your site's own origin under one path
prefix. Run the endpoint with the same prefix, trusting the web server's address:

  pulse-widgets serve --prefix /pulse --trust-proxy loopback

  --prefix </path>    where the endpoint appears on the site (/pulse)
  --upstream <url>    where the web server reaches \`pulse-widgets serve\` (http://127.0.0.1:8080)
`;

/** The endpoint's address: http(s), host and port only (the prefix is the path). */
function checkUpstream(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`--upstream "${value}" is not a URL such as http://127.0.0.1:8080`);
  }
  if (
    !/^https?:$/.test(url.protocol) ||
    url.pathname !== '/' ||
    url.search ||
    url.hash ||
    url.username ||
    url.password
  ) {
    throw new ConfigError(`--upstream "${value}" must be http(s)://host:port, without a path`);
  }
  return url;
}

/** `proxy-config` arguments: the server and the options, or what is wrong with them. */
export function readProxyConfigArgs(
  argv: readonly string[],
): { help: true } | { server: ProxyServer; options: ProxyConfigOptions } | { error: string } {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        prefix: { type: 'string', default: '/pulse' },
        upstream: { type: 'string', default: 'http://127.0.0.1:8080' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) return { help: true };
    const [command, server, ...rest] = positionals;
    if (command !== 'proxy-config' || (server !== 'apache' && server !== 'nginx') || rest.length > 0) {
      return {
        error:
          'expected "proxy-config apache" or "proxy-config nginx" (see pulse-widgets proxy-config --help)',
      };
    }
    const prefix = checkPrefix(values.prefix);
    if (prefix === '')
      throw new ConfigError(
        '--prefix must name a path such as /pulse: the endpoint gets one path of the site, not all of it',
      );
    return { server, options: { prefix, upstream: checkUpstream(values.upstream) } };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** What `--trust-proxy` should say: loopback when the endpoint is on this machine, else this web server's own address. */
function trustHint(upstream: URL): string {
  return /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(upstream.hostname)
    ? 'loopback'
    : '<address of this web server>';
}

function nginxConfig({ prefix, upstream }: ProxyConfigOptions): string {
  return `# pulse-widgets cache endpoint on this site, under ${prefix}/ (pulse-widgets proxy-config nginx).
# Inside your site's server { } block. Run the endpoint with the same prefix, trusting nginx:
#   pulse-widgets serve --prefix ${prefix} --trust-proxy ${trustHint(upstream)}
# (--trust-proxy names the addresses nginx connects from: loopback when both run on one machine).

location ${prefix}/ {
    # No URI after the address: the path goes on as sent, prefix included.
    proxy_pass ${upstream.origin};
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $host;
    # The reader's address, appended to what came before, for the endpoint's per-reader limit.
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto $scheme;
    # nginx does not maintain Forwarded: a reader's own copy must not reach the endpoint.
    proxy_set_header Forwarded "";
    # Answers are small JSON, sent as they arrive: nothing held back or written to temp files.
    proxy_buffering off;
    # The endpoint stores gzip and br bodies and picks one per Accept-Encoding (sent along):
    # compressing here again would only change ETags.
    gzip off;
}

# Operations stay private (scrape the endpoint directly); /healthz and /readyz stay reachable.
location = ${prefix}/metrics {
    return 404;
}

# The TV board page is served at /board/ (not under the prefix); uncomment to show it here too.
# location /board/ {
#     proxy_pass ${upstream.origin};
#     proxy_set_header Host $host;
#     proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
# }
`;
}

function apacheConfig({ prefix, upstream }: ProxyConfigOptions): string {
  const base = upstream.origin;
  return `# pulse-widgets cache endpoint on this site, under ${prefix}/ (pulse-widgets proxy-config apache).
# Inside your site's <VirtualHost>. Needs mod_proxy, mod_proxy_http, mod_headers and mod_env:
#   a2enmod proxy proxy_http headers env
# Run the endpoint with the same prefix, trusting Apache:
#   pulse-widgets serve --prefix ${prefix} --trust-proxy ${trustHint(upstream)}
# (--trust-proxy names the addresses Apache connects from: loopback when both run on one machine).
# mod_proxy_http appends the reader's address to X-Forwarded-For itself.

# The path goes on as sent, prefix included. Answers are streamed as they arrive.
ProxyPass        ${prefix}/ ${base}${prefix}/
ProxyPassReverse ${prefix}/ ${base}${prefix}/

<Location ${prefix}/>
    # Apache does not maintain Forwarded: a reader's own copy must not reach the endpoint.
    RequestHeader unset Forwarded
    # The endpoint stores gzip and br bodies and picks one per Accept-Encoding (sent along):
    # mod_deflate compressing again would only change ETags.
    SetEnv no-gzip 1
    SetEnv no-brotli 1
</Location>
# Operations stay private (scrape the endpoint directly); /healthz and /readyz stay reachable.
<Location ${prefix}/metrics>
    Require all denied
</Location>

# The TV board page is served at /board/ (not under the prefix); uncomment to show it here too.
# ProxyPass        /board/ ${base}/board/
# ProxyPassReverse /board/ ${base}/board/
`;
}

export function proxyConfig(server: ProxyServer, options: ProxyConfigOptions): string {
  return server === 'nginx' ? nginxConfig(options) : apacheConfig(options);
}

/** `pulse-widgets proxy-config …`: the configuration or the usage on stdout, or a one-line error (exit code 2). */
export function printProxyConfig(argv: readonly string[]): void {
  const read = readProxyConfigArgs(argv);
  if ('help' in read) process.stdout.write(PROXY_CONFIG_USAGE);
  else if ('error' in read) {
    console.error(`pulse-widgets: ${read.error}`);
    process.exitCode = 2;
  } else process.stdout.write(proxyConfig(read.server, read.options));
}
