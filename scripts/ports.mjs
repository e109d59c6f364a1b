/**
 * Loopback ports for programs that must be told their port before they listen (WebKit's
 * inspector, redis-server, nginx, Apache). Picked below the kernel's ephemeral range, so no
 * `listen(0)` and no outgoing connection on this machine can be handed one in the moment between
 * our pick and the program's bind (in that range, a test's Redis restarted on its port found
 * another process there, or a browser's driver talked to another run's browser).
 */
import { readFileSync } from 'node:fs';

/** The kernel's ephemeral ports, [low, high]: what it hands out for port 0 and outgoing connections. */
function ephemeralPorts() {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (low > 0 && high >= low) return { low, high };
  } catch {
    // not Linux: the range IANA suggests
  }
  return { low: 49152, high: 65535 };
}

/**
 * A loopback port for a program that must be told its port before it listens. It lies below the
 * ephemeral range, so no `listen(0)` and no outgoing connection on this machine can be handed it
 * in the moment between our pick and the program's bind; what can still collide (another run
 * picking the same port) is caught by `listensOn`.
 */
export function pickPort() {
  const { low } = ephemeralPorts();
  const floor = Math.max(1024, low - 10_000);
  return floor + Math.floor(Math.random() * (low - floor));
}
