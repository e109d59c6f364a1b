/**
 * The cache's promises in the deterministic simulation (test/simulation/): seeds of 10 simulated
 * minutes each, every invariant judged per seed. `npm run simulate -- --seeds 200` runs many more
 * (too slow for every `npm test`: about 2 s of CPU per simulated minute of a busy newsroom);
 * `PULSE_SIM_SEEDS=N` sets how many run here. A failing seed names the command that replays it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { describeScenario, replayCommand, simulate } from './simulation/simulate.ts';

const SEEDS = Number(process.env.PULSE_SIM_SEEDS ?? 3);
/**
 * A known violation, reported and not yet fixed: above capacity the budget's stretch is not
 * always shared within ±20 % (seeds 9 and 19 of 1–24, both two instances with a script asking
 * new queries: the widest fold group's query refreshed every 4–5.4 s where its site's queries
 * average 5.7–7 s). Seeds 3 and 10 broke it too until the plan became a round-robin that every
 * instance ranks alike.
 */
const KNOWN = /^fairness: /;

describe('the cache in the deterministic simulation', () => {
  test('a seed replays exactly: the same polls, answers, grants and arrivals', async () => {
    const digest = async () => {
      const { record } = await simulate(3, 2);
      return createHash('sha256').update(JSON.stringify([record.polls, record.grants, record.arrivals])).digest('hex');
    };
    assert.equal(await digest(), await digest());
  });

  for (let seed = 1; seed <= SEEDS; seed += 1) {
    test(`seed ${seed}`, async (t) => {
      const { scenario, verdict } = await simulate(seed);
      const known = verdict.violations.filter((violation) => KNOWN.test(violation));
      const broken = verdict.violations.filter((violation) => !KNOWN.test(violation));
      const where = `${describeScenario(scenario)}\n  replay: ${replayCommand(seed)}`;
      assert.deepEqual(broken, [], `seed ${seed}: ${where}`);
      if (known.length > 0) t.todo(`known violation (fairness of the stretch above capacity): ${known[0]}; ${where}`);
    });
  }
});
