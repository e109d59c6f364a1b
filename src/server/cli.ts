/**
 * `pulse-widgets serve`: one line per configuration problem and a non-zero exit, or one line
 * saying where it listens and in which mode. Logs are JSON lines on stdout.
 * `pulse-widgets proxy-config apache|nginx`: prints a web server configuration (proxy-config.ts).
 */
import { printProxyConfig } from './proxy-config.ts';
import { readSettings, USAGE } from './settings.ts';
import { serve } from './serve.ts';
import { runWorkers } from './workers/cluster.ts';

const args = process.argv.slice(2);
const result = args[0] === 'proxy-config' ? undefined : readSettings(args, process.env);
if (result === undefined) {
  printProxyConfig(args);
} else if ('help' in result) {
  process.stdout.write(USAGE);
} else if ('errors' in result) {
  for (const error of result.errors) console.error(`pulse-widgets: ${error}`);
  process.exitCode = 2;
} else {
  const { settings } = result;
  try {
    const running = settings.workers > 1 ? await runWorkers(settings) : await serve(settings);
    // A worker (forked from this same script) serves without a word; the primary speaks for all.
    if (running) {
      const mode = running.mode === 'demo' ? 'demo mode (simulated upstream)' : `upstream ${settings.upstream!.origin}`;
      const workers = settings.workers > 1 ? `, ${settings.workers} workers` : '';
      console.log(`pulse-widgets: ${mode}, hosts ${running.hosts.join(', ')}${workers}; listening on ${running.url}/`);
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
