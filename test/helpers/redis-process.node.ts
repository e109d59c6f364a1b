/**
 * Starts Debian's redis-server on a free loopback port with no persistence, for the shared-tier
 * tests; stops it by PID. `kill()` simulates an outage, `restart()` brings it back on the same port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { freePort } from './free-port.node.ts';

export const REDIS_BINARY = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((path) => existsSync(path));

export interface RedisProcess {
  url: string;
  port: number;
  kill(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startRedis(): Promise<RedisProcess> {
  if (!REDIS_BINARY) throw new Error('redis-server is not installed (Debian: apt-get install redis-server)');
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    child = spawn(REDIS_BINARY!, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], { stdio: 'ignore' });
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
