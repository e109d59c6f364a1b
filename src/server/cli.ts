/**
 * `pulse-widgets serve`: one line per configuration problem and a non-zero exit, or one line
 * saying where it listens and in which mode. Logs are JSON lines on stdout.
 * `pulse-widgets proxy-config apache|nginx`: prints a web server configuration (proxy-config.ts).
 * `pulse-widgets doctor`: the real service's answers against our contract (doctor/command.ts).
 */
import { doctorCommand } from './doctor/command.ts';
import { printProxyConfig } from './proxy-config.ts';
import { readSettings, USAGE } from './config/settings.ts';
import { serve } from './serve.ts';
import { runWorkers } from './workers/cluster.ts';

/** `serve` (the default command): settings from flags and environment, then one process or the workers. */
async function runServe(args: string[]): Promise<void> {
  const result = readSettings(args, process.env);
  if ('help' in result) {
    process.stdout.write(USAGE);
    return;
  }
  if ('errors' in result) {
    for (const error of result.errors) console.error(`pulse-widgets: ${error}`);
    process.exitCode = 2;
    return;
  }
  const { settings } = result;
  try {
    const running = settings.workers > 1 ? await runWorkers(settings) : await serve(settings);
    // A worker (forked from this same script) serves without a word; the primary speaks for all.
    if (running) {
      const mode =
        running.mode === 'demo' ? 'demo mode (simulated upstream)' : `upstream ${settings.upstream!.origin}`;
      const workers = settings.workers > 1 ? `, ${settings.workers} workers` : '';
      console.log(
        `pulse-widgets: ${mode}, hosts ${running.hosts.join(', ')}${workers}; listening on ${running.url}/`,
      );
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.once(signal, () => {
          void running.close().then(() => process.exit(0));
        });
      }
    }
  } catch (error) {
    console.error(`pulse-widgets: cannot start: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}

const args = process.argv.slice(2);
if (args[0] === 'proxy-config') printProxyConfig(args);
else if (args[0] === 'doctor')
  process.exitCode = await doctorCommand(args.slice(1), process.env, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
else await runServe(args);
