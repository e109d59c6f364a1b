/**
 * `pulse-widgets doctor [--json] [--host <site>]`: the same environment as `serve`
 * (PULSE_UPSTREAM, PULSE_API_KEY or PULSE_API_KEY_FILE, PULSE_HOSTS; the first host unless
 * `--host`). Exit 0 when every route is usable, 1 when one is not, 2 on a configuration problem.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { realClock, type Clock } from '../../runtime/clock.ts';
import { ConfigError } from '../../runtime/config-error.ts';
import { checkApiKey, checkHosts, upstreamUrl } from '../config/checks.ts';
import { USER_AGENT } from '../upstream.ts';
import { runDoctor } from './doctor.ts';
import { textReport } from './report.ts';

export const DOCTOR_USAGE = `Usage: pulse-widgets doctor [--json] [--host <site>]

Calls each route of the real service once, with the parameters the elements use (raw data for
one day), and lists every difference between its answers and what pulse-widgets expects. A 429
or 503 with a Retry-After of at most 10 s is asked once more, when it says. Run it first against
a new key or service, and paste its output into a bug report.
Reads the environment of \`pulse-widgets serve\`: PULSE_UPSTREAM, PULSE_API_KEY (or
PULSE_API_KEY_FILE), PULSE_HOSTS (the first host unless --host).

  --json          the report as JSON
  --host <site>   the site ID to ask about
`;

export interface CommandOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs the command; resolves to the exit code. */
export async function doctorCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  output: CommandOutput,
  clock: Clock = realClock,
): Promise<number> {
  let values: { json?: boolean; host?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: { json: { type: 'boolean' }, host: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    output.err(`pulse-widgets doctor: ${(error as Error).message}\n`);
    return 2;
  }
  if (values.help) {
    output.out(DOCTOR_USAGE);
    return 0;
  }
  let config: ReturnType<typeof readConfig>;
  try {
    config = readConfig(env, values.host);
  } catch (error) {
    output.err(`pulse-widgets doctor: ${(error as Error).message}\n`);
    return 2;
  }
  const reports = await runDoctor({ ...config, clock });
  if (values.json)
    output.out(
      `${JSON.stringify({ upstream: config.upstream.origin, host: config.host, userAgent: USER_AGENT, routes: reports }, null, 2)}\n`,
    );
  else
    output.out(
      textReport(
        reports,
        `pulse-widgets doctor: ${config.upstream.origin}, host ${config.host}, ${new Date(clock.now()).toISOString()}, ${USER_AGENT}`,
      ),
    );
  return reports.every((report) => report.outcome === 'ok') ? 0 : 1;
}

function readConfig(env: Readonly<Record<string, string | undefined>>, hostFlag: string | undefined) {
  if (!env.PULSE_UPSTREAM)
    throw new ConfigError(
      'PULSE_UPSTREAM is not set: doctor checks a real service (set it to the base URL of the service)',
    );
  const upstream = upstreamUrl(env.PULSE_UPSTREAM);
  if (env.PULSE_API_KEY && env.PULSE_API_KEY_FILE)
    throw new ConfigError('PULSE_API_KEY and PULSE_API_KEY_FILE are both set: keep one');
  const rawKey = env.PULSE_API_KEY_FILE ? readFileSync(env.PULSE_API_KEY_FILE, 'utf8') : env.PULSE_API_KEY;
  if (!rawKey) throw new ConfigError('no key: set PULSE_API_KEY (or PULSE_API_KEY_FILE)');
  const apiKey = checkApiKey(rawKey);
  const hosts = hostFlag ?? env.PULSE_HOSTS;
  if (!hosts) throw new ConfigError('no site: set PULSE_HOSTS or pass --host');
  const [host] = checkHosts(hosts.split(','));
  return { upstream, apiKey, host: host! };
}
