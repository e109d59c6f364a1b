/**
 * `pulse-widgets serve --workers N`: N processes (node:cluster) serve one port, so cache hits use
 * every core, while fills stay one per key per TTL and the upstream budget stays one per host:
 * the workers share entries, fill leases and the budget through the primary (`Coordinator`, over
 * IPC), or through Redis when `PULSE_REDIS_URL` is set. The primary runs the simulator in demo
 * mode, replaces a worker that dies, and on SIGTERM stops the workers and then itself.
 *
 * `runWorkers` is called the same way in the primary and in each worker (cluster forks the same
 * script): the primary answers with the running cluster, a worker with `undefined` once it serves.
 */
import cluster, { type Worker } from 'node:cluster';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import { createLogger } from '../http/handler.ts';
import type { CacheOptions } from '../config/options.ts';
import { historyOptions, serveEndpoint, startUpstream, type UpstreamTarget } from '../serve.ts';
import type { ServeSettings } from '../config/settings.ts';
import { Coordinator, isTierRequest } from './coordinator.ts';
import { IpcTier } from './ipc-tier.ts';
import { realClock } from '../../runtime/clock.ts';

/** The environment variable that tells a worker its slot, 0 to workers - 1. */
const WORKER_SLOT = 'PULSE_WORKER_SLOT';

export interface RunningWorkers {
  url: string;
  mode: 'demo' | 'upstream';
  hosts: readonly string[];
  close(): Promise<void>;
}

/** A worker asks for its start (a message sent before it listens would be lost); the primary answers with the upstream. */
interface ReadyMessage {
  pulseReady: true;
}
interface StartMessage {
  pulseStart: UpstreamTarget;
}
/** A worker asks for `/metrics` of every worker, summed by prom-client's cluster aggregator. */
interface MetricsMessage {
  pulseMetrics: number;
  text?: string;
}

/** A worker that dies sooner than this after its start counts as a crash loop: its replacement waits. */
const STABLE_MS = 5000;
const MAX_RESTART_DELAY_MS = 10_000;
/**
 * The primary runs on this machine: it can be slow (a busy machine), never unreachable while this
 * worker lives (a worker whose primary is gone exits). Acting alone because it was merely slow
 * would spend the budget twice, so a worker waits this long for it.
 */
const PRIMARY_TIMEOUT_MS = 5000;
/** How long workers get to finish in-flight requests on SIGTERM before they are killed. */
const SHUTDOWN_MS = 10_000;

export async function runWorkers(
  settings: ServeSettings,
  overrides: Partial<CacheOptions> = {},
  logger: Logger = createLogger(settings.logLevel),
): Promise<RunningWorkers | undefined> {
  if (cluster.isWorker) {
    await runWorker(settings, overrides, logger);
    return undefined;
  }
  return runPrimary(settings, logger);
}

async function runPrimary(settings: ServeSettings, logger: Logger): Promise<RunningWorkers> {
  const upstream = await startUpstream(settings);
  const target: UpstreamTarget = {
    url: upstream.url,
    apiKey: upstream.apiKey,
    mode: upstream.mode,
    hosts: upstream.hosts,
  };
  // Without Redis the primary is the shared tier; with it, every worker talks to Redis itself.
  const coordinator = settings.redisUrl === undefined ? new Coordinator(settings.cacheMaxBytes) : undefined;
  cluster.setupPrimary({ serialization: 'advanced' });
  const aggregator = new AggregatorRegistry();
  const workers = new Set<Worker>();
  let closing = false;
  let restartDelayMs = 0;
  // Ready once every first worker listens, so the first requests are dealt to all of them.
  let waitingFor = settings.workers;
  let announce: ((url: string) => void) | undefined;
  const listening = new Promise<string>((resolve) => {
    announce = resolve;
  });

  // A replacement takes the slot of the worker it replaces (its history directory, see runWorker).
  const start = (slot: number) => {
    const startedAt = realClock.now();
    const worker = cluster.fork({ [WORKER_SLOT]: String(slot) });
    workers.add(worker);
    worker.on('message', (message: unknown) => {
      if (coordinator && isTierRequest(message)) worker.send(coordinator.answer(message));
      else if ((message as ReadyMessage | undefined)?.pulseReady)
        worker.send({ pulseStart: target } satisfies StartMessage);
      else if (typeof (message as MetricsMessage | undefined)?.pulseMetrics === 'number') {
        const { pulseMetrics } = message as MetricsMessage;
        aggregator.clusterMetrics().then(
          (text) => worker.send({ pulseMetrics, text } satisfies MetricsMessage),
          (error: Error) => {
            logger.warn({ err: error.message }, 'metrics of the workers could not be collected');
            worker.send({ pulseMetrics } satisfies MetricsMessage);
          },
        );
      }
    });
    worker.once('listening', (address) => {
      const host = address.address ?? settings.host;
      waitingFor -= 1;
      if (waitingFor === 0) announce?.(`http://${host.includes(':') ? `[${host}]` : host}:${address.port}`);
    });
    worker.once('exit', (code, signal) => {
      workers.delete(worker);
      if (closing) return;
      const ranMs = realClock.now() - startedAt;
      restartDelayMs =
        ranMs >= STABLE_MS ? 0 : Math.min(MAX_RESTART_DELAY_MS, Math.max(100, restartDelayMs * 2));
      logger.error(
        { pid: worker.process.pid, code, signal, restartInMs: restartDelayMs },
        'worker died: starting a replacement',
      );
      const restart = realClock.setTimeout(() => {
        if (!closing) start(slot);
      }, restartDelayMs);
      // The primary may hold nothing else open while every worker is down: this wait keeps it alive.
      (restart as NodeJS.Timeout).ref();
    });
  };
  for (let slot = 0; slot < settings.workers; slot += 1) start(slot);
  const address = await listening;

  return {
    url: address,
    mode: upstream.mode,
    hosts: upstream.hosts,
    close: async () => {
      closing = true;
      await Promise.all([...workers].map((worker) => stopWorker(worker)));
      await upstream.close();
    },
  };
}

/** SIGTERM, then SIGKILL if it has not exited within `SHUTDOWN_MS`. */
function stopWorker(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    if (worker.isDead()) return resolve();
    const kill = realClock.setTimeout(() => worker.process.kill('SIGKILL'), SHUTDOWN_MS);
    worker.once('exit', () => {
      realClock.clearTimeout(kill);
      resolve();
    });
    worker.process.kill('SIGTERM');
  });
}

async function runWorker(
  settings: ServeSettings,
  overrides: Partial<CacheOptions>,
  logger: Logger,
): Promise<void> {
  const target = await new Promise<UpstreamTarget>((resolve) => {
    const onMessage = (message: unknown) => {
      const start = (message as StartMessage | undefined)?.pulseStart;
      if (!start) return;
      process.off('message', onMessage);
      resolve(start);
    };
    process.on('message', onMessage);
    process.send!({ pulseReady: true } satisfies ReadyMessage);
  });
  const shared =
    settings.redisUrl === undefined
      ? {
          sharedTier: new IpcTier(process as Required<typeof process>, PRIMARY_TIMEOUT_MS),
          instances: settings.workers,
        }
      : { instances: settings.instances * settings.workers };
  // A history directory belongs to one process: without Redis each worker records into its own,
  // kept across its replacements (the samples come from the fills the workers share).
  const history = historyOptions(settings, target);
  if (settings.redisUrl === undefined && history.dataDir !== undefined && history.dataDir !== 'memory') {
    history.dataDir = join(history.dataDir, `worker-${process.env[WORKER_SLOT]}`);
  }
  let asked = 0;
  const answers = new Map<number, (text: string | undefined) => void>();
  process.on('message', (message: unknown) => {
    const reply = message as MetricsMessage | undefined;
    if (typeof reply?.pulseMetrics === 'number') answers.get(reply.pulseMetrics)?.(reply.text);
  });
  const endpoint = await serveEndpoint(
    settings,
    target,
    logger.child({ worker: cluster.worker?.id }),
    { ...shared, history, ...overrides },
    async () => {
      const id = (asked += 1);
      const text = await new Promise<string | undefined>((resolve) => {
        answers.set(id, resolve);
        process.send!({ pulseMetrics: id } satisfies MetricsMessage);
      }).finally(() => answers.delete(id));
      // The primary could not collect them all: this worker's own, rather than nothing.
      return text ?? endpoint.cache.registry.metrics();
    },
  );
  // Answers the primary's aggregator with this worker's registry.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([endpoint.cache.registry]);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void endpoint.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // The primary is gone (killed without its SIGTERM handler): nobody is left to coordinate.
  process.once('disconnect', stop);
}
