/**
 * The deterministic simulation of the cache: `simulate(seed)` builds the seed's scenario, runs
 * it on a virtual clock and judges the record. The same seed replays exactly.
 */
import { judge, type Verdict } from './invariants.ts';
import { scenarioOf, START, type Scenario, type Variant } from './scenario.ts';
import { runScenario, type Record } from './world.ts';

export interface Outcome {
  scenario: Scenario;
  verdict: Verdict;
  record: Record;
}

export async function simulate(seed: number, minutes = 10, variant: Variant = {}): Promise<Outcome> {
  const scenario = scenarioOf(seed, minutes, variant);
  const record = await runScenario(scenario);
  return { scenario, record, verdict: judge(scenario, record, START) };
}

/** The one command that replays a seed exactly. */
export const replayCommand = (seed: number, minutes = 10, variant: Variant = {}) =>
  `npm run simulate -- --seed ${seed}${minutes === 10 ? '' : ` --minutes ${minutes}`}${variant.sprayer ? ` --sprayer ${variant.sprayer}` : ''}${variant.clocks ? ` --clocks ${variant.clocks}` : ''}`;

/** One line about a scenario, for reports. */
export function describeScenario(scenario: Scenario): string {
  const queries = scenario.dashboards.reduce((sum, d) => sum + d.queries.length, 0);
  const faults = scenario.faults.map((f) => `${f.kind} ${f.from}-${f.to} ms`).join(', ') || 'none';
  return `${scenario.instances} instance(s), ${scenario.dashboards.length} dashboard(s) of ${queries} queries, faults: ${faults}, restarts: ${scenario.restarts.length}, tier outages: ${scenario.tierOutages.length}${scenario.clockSkews.some((skew) => skew !== 0) ? `, instance clocks ${scenario.clockSkews.map((skew) => `${skew > 0 ? '+' : ''}${skew}`).join('/')} ms from the tier's` : ''}${scenario.sprayers.map((s) => `, a sprayer every ${s.everyMs} ms ${s.from}-${s.to} ms${s.rotatesAddress ? ' from a new address each time' : ''}`).join('')}`;
}
