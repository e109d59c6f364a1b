/**
 * Starts Debian's redis-server on a free loopback port with no persistence, for the shared-tier
 * tests; stops it by PID. `kill()` simulates an outage, `restart()` brings it back on the same port.
 * `startRedisCluster()` makes a Redis Cluster of masters the same way, joined by redis-cli.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { REDIS_BINARY, REDIS_CLI, REDIS_MISSING } from '../../scripts/servers.mjs';
import { freePort } from './free-port.node.ts';

export interface RedisProcess {
  url: string;
  port: number;
  kill(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
  /**
   * Moves Redis's expiries as a virtual clock moving `ms` would: a key due within `ms` is deleted,
   * a later one keeps what is left. Redis's clock cannot be set, and a test that moves its own
   * clock a minute in a moment otherwise finds the last minute's leases still held.
   */
  elapse(ms: number): Promise<void>;
}

/** {@link RedisProcess.elapse}: every key with an expiry, shortened by ARGV[1] ms or deleted. */
const ELAPSE = `
for _, key in ipairs(redis.call('KEYS', '*')) do
  local left = redis.call('PTTL', key)
  if left > 0 then
    if left <= tonumber(ARGV[1]) then redis.call('DEL', key)
    else redis.call('PEXPIRE', key, left - tonumber(ARGV[1])) end
  end
end`;

/** A loopback redis-server on `port` that keeps nothing on disk. */
function serverArgs(port: number): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--protected-mode',
    'yes',
  ];
}

export async function startRedis(): Promise<RedisProcess> {
  if (REDIS_MISSING) throw new Error(REDIS_MISSING);
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    child = spawn(REDIS_BINARY!, serverArgs(port), { stdio: 'ignore' });
    await waitForPort(port);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: async () => {
      await kill();
      await start();
    },
    close: kill,
    elapse: async (ms) => {
      const client = createClient({ url: `redis://127.0.0.1:${port}` });
      await client.connect();
      try {
        await client.eval(ELAPSE, { arguments: [String(ms)] });
      } finally {
        client.destroy();
      }
    },
  };
}

async function waitForPort(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not listen on ${port} within 5 s`);
}

export interface RedisCluster {
  /** `redis+cluster://` with every master as a seed. */
  url: string;
  ports: number[];
  /** The port of the master that serves `key`'s slot. */
  masterOf(key: string): number;
  /** SIGKILL one master: its slots are served by nobody (no replicas), the others go on. */
  kill(port: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * `masters` redis-servers with `--cluster-enabled yes` in a temporary directory each, joined with
 * `redis-cli --cluster create` (no replicas). `cluster-require-full-coverage no`: the masters left
 * keep serving their slots when one dies, as a cluster whose failed master has no replica to promote.
 */
export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  const [server, redisCli] = [REDIS_BINARY, REDIS_CLI];
  if (!server || !redisCli) throw new Error(`${REDIS_MISSING}`);
  const dir = await mkdtemp(join(tmpdir(), 'pulse-redis-cluster-'));
  const children = new Map<number, ChildProcess>();
  const ports: number[] = [];
  const kill = async (port: number) => {
    const child = children.get(port);
    children.delete(port);
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  const close = async () => {
    await Promise.all([...children.keys()].map(kill));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i += 1) {
      const port = await freePort();
      // The cluster bus listens on port + 10 000 unless told, which lies in the ephemeral range:
      // another process's socket there made a node exit before it listened. Picked like the port.
      const busPort = await freePort();
      const nodeDir = join(dir, String(port));
      await mkdir(nodeDir);
      children.set(
        port,
        spawn(
          server,
          [
            ...serverArgs(port),
            '--cluster-enabled',
            'yes',
            '--cluster-port',
            String(busPort),
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-node-timeout',
            '1000',
            '--cluster-require-full-coverage',
            'no',
            '--dir',
            nodeDir,
          ],
          { stdio: 'ignore' },
        ),
      );
      ports.push(port);
      await waitForPort(port);
    }
    const create = spawnSync(
      redisCli,
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    if (create.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${create.stdout} ${create.stderr}`);
    const cli = (...args: string[]) =>
      spawnSync(redisCli, ['-p', String(ports[0]), ...args], { encoding: 'utf8' }).stdout;
    for (
      let attempt = 0;
      !ports.every((port) =>
        /cluster_state:ok/.test(
          spawnSync(redisCli, ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' }).stdout,
        ),
      );
      attempt += 1
    ) {
      if (attempt > 200) throw new Error('the cluster did not reach cluster_state:ok within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // CLUSTER SLOTS, one value a line: start, end, then ip, port and node id of the master.
    const ranges = [...cli('cluster', 'slots').matchAll(/^(\d+)\n(\d+)\n[\d.]+\n(\d+)\n[0-9a-f]{40}$/gm)].map(
      ([, from, to, port]) => ({ from: Number(from), to: Number(to), port: Number(port) }),
    );
    if (ranges.length !== masters)
      throw new Error(`CLUSTER SLOTS: expected ${masters} ranges, read ${ranges.length}`);
    return {
      url: `redis+cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`,
      ports,
      masterOf: (key) => {
        const slot = Number(cli('cluster', 'keyslot', key).trim());
        return ranges.find((range) => range.from <= slot && slot <= range.to)!.port;
      },
      kill,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
