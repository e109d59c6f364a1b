import { createServer } from 'node:net';
import { pickPort } from '../../scripts/ports.mjs';

/**
 * A loopback port for servers that cannot listen on port 0 themselves (redis-server, nginx,
 * Apache): below the ephemeral range (scripts/ports.mjs), so no other process's `listen(0)` or
 * outgoing connection takes it before the server binds it, or while a test has stopped the server
 * to start it again on the same port; and free now, so another run's pick is not reused.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = pickPort();
    if (await bindable(port)) return port;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
