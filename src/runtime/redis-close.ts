/**
 * Closing a node-redis client for good: no connection outlives it. node-redis 6.3's `destroy()`
 * spares a socket still connecting, which then connects and stays open, keeping the process
 * alive (a server stopped as it started); on a cluster, a topology refresh in flight when it is
 * destroyed also opens a client to every master it finds. Each late connection is ended as it
 * lands.
 */

interface Client {
  on(event: 'connect', listener: () => void): unknown;
  destroy(): unknown;
}

interface Cluster {
  on(event: 'node-connect', listener: () => void): unknown;
  readonly masters: readonly { client?: { destroy(): unknown } }[];
  destroy(): unknown;
}

/** One server's client: by the time it says `connect`, it holds the socket its `destroy()` ends. */
export function closeClient(client: Client): void {
  client.on('connect', () => client.destroy());
  client.destroy();
}

/**
 * A cluster's: every master's client is ended whenever a node connects, not only the one that
 * did, since the cluster's own `destroy()` forgets those still connecting.
 */
export function closeCluster(cluster: Cluster): void {
  cluster.on('node-connect', () => {
    for (const master of cluster.masters) master.client?.destroy();
  });
  cluster.destroy();
}
