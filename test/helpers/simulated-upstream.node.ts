/**
 * The simulator's HTTP face on a clock the test sets, asked in process: the raw body of a route
 * (200 asserted), or the body parsed and checked against the route's response schema: accepted,
 * with nothing dropped.
 */
import assert from 'node:assert/strict';
import { readDifferences, routes, type RouteName, type RouteResponse } from '../../src/api/index.ts';
import { RESPONSE_SHAPES } from '../../src/api/response-shapes.ts';
import { createUpstreamHandler, type Sent } from '../../src/simulator/index.ts';

const KEY = 'simulated-upstream-key';

export function simulatedUpstream(seed: number, start: number) {
  const clock = { now: start };
  const handler = createUpstreamHandler({
    apiKey: KEY,
    seed,
    now: () => clock.now,
    rateLimitPerMinute: 1_000_000,
  });
  async function text(route: RouteName, query: string): Promise<string> {
    const response = await handler(
      new Request(`http://sim.test${routes[route].path}?${query}`, { headers: { 'X-SVC-AK': KEY } }),
    );
    const body = await response.text();
    assert.equal(response.status, 200, `${route}?${query}: ${body}`);
    return body;
  }
  async function get<N extends RouteName>(route: N, query: string): Promise<Sent<RouteResponse<N>>> {
    const body = JSON.parse(await text(route, query)) as unknown;
    const checked = routes[route].response.safeParse(body);
    assert.ok(
      checked.success,
      `${route}?${query} does not match its schema: ${checked.success ? '' : JSON.stringify(checked.error.issues.slice(0, 3))}`,
    );
    assert.deepEqual(
      readDifferences(RESPONSE_SHAPES[route], body).differences,
      [],
      `${route}?${query}: nothing of the simulator's answer is dropped`,
    );
    return body as Sent<RouteResponse<N>>;
  }
  return { clock, text, get };
}
