/**
 * The seeds that once caught a bug, run with the first seeds so that the bug stays caught:
 * `npm test` runs `npm run simulate -- --seeds 40 --caught` (scripts/test.mjs).
 */
import type { SeedRun } from './pool.ts';
import { scenarioOf, type Variant } from './scenario.ts';

/**
 * Seeds that caught a bug: 10 (three instances above capacity: each ranked keys by its own
 * copies, and a fold member came back as two objects; queries refreshed every 6 s
 * and others every 16), 16 (a cold burst, then the tier lost: 202 calls reached the service in
 * a minute), 19 (two instances and a script asking new queries: each new one re-planned the
 * site, and the widest fold group was refreshed twice as often as the rest), 88 (above capacity,
 * a page polling 358 ms after the tick refilled two wide queries off the plan just before each
 * plan, which left them out: every 3 s while the others waited 7 s), 72 (two instances, polls
 * answered by the hit path first as `listen` does: while one instance waited for the other's
 * refill, its hit path answered its own copy, a tick older than the one the other had written),
 * 300 (three instances: a folded query polled on one of them after 12 s away was folded with
 * what that instance alone still knew, filled alone past the plan, and read data 20 s old),
 * 302 (three instances, the tier lost and back: a folded query filled alone during the loss was
 * answered 503 after it, its own copy forgotten by the group whose wide query it no longer was),
 * 367 (a dashboard opened while the service was down, so its site had no plan, and a rotating
 * sprayer's failing new queries filled the minute the dashboard needed once the service was back),
 * 588 (two instances, the tier lost while the service rate-limited: a fill begun alone in the
 * outage waited 40 s for the budget and called 1.9 s before the other instance's planned refill
 * of the same query, whose lease it never asked for), 23 (a query polled on time and by a page
 * 1.7 s late: keys on time took the one window both read fresh, and the late page read it stale
 * every tick), 122 (a page 1.7 s late: its key came 24 ms short of its window every tick and
 * stayed where the page read it stale), 465 (three instances: one kept a page's first poll, made
 * off its grid, as the key's lateness for minutes, and planned it in another window than the
 * others), 641 (a page 382 ms late, its polls 7 ms after the plan: refilled off the plan every
 * tick, its planned refill skipped for the least gap, its answers stale for ten minutes), 523
 * (three instances under capacity: one learned of keys late and re-planned the site 0.6 s
 * before the tick, stretched the keys whose windows had passed, and served its own 3.7 s old
 * copies of them as fresh while another instance had refilled them), 1051 (a page 376 ms late,
 * 1 ms after the plan: as 641, its refill off the plan ran its copy out at its next poll, every
 * tick), 1077 (two instances: the plan counted a running fill from when it began, the copy from
 * its call after the lease, and the next refill, armed 4 ms inside the least gap, was dropped),
 * 1405 (two instances: a page's six polls all went to one of them for a tick, and the other,
 * which had planned the page's key, read the polls only when polled itself, took the key for
 * left alone and skipped its refill), 1762 (a page 1.962 s late, counted as 2 s: the refills for
 * its poll started 362 ms before it, and a 363 ms answer landed after it), 1875 (two instances, one restarted while the tier was
 * down: its first poll waited for the budget, the tier came back, the next poll was answered the
 * tier's copy, and the first one 503), 2314 (three instances: one had folded a summary query
 * alone and answered it from its own copy on the hit path, so it stayed polled and the plan
 * refilled it beside its group's wide query for 20 s), 2756 (a late page's lateness flapped
 * between 1.8 and 1.9 s, a key moved, and another, held back by the least gap, was counted in
 * one window and started in the next, its fourth: the budget pushed that window's last refill
 * past the tick), 986 (with 2756's fix but a plan blind to backoff: a refill moved 10 ms inside
 * its key's backoff after a slow upstream and was dropped, and the page read a copy 147 s old),
 * 4113 (a sprayer of new queries: a refill the least gap held back into a full window was
 * reserved there, not in the next window where the budget granted it; that window was left to
 * two new queries, and the refill planned in it was made at the tick, its poll read data 3 s old),
 * 4929 (three instances: one filled a key off the plan after its backoff; another, whose plan
 * had not known of that fill, dropped its planned refill for the least gap and answered its
 * page's next poll from the copy it adopted, fresh 7 ms longer, while the tier held the newer
 * refill), 5867 (two instances: one restarted, with no copy, while the tier was away; its fill,
 * waiting for the other instance's, took the tier's 63 s old entry for it, and two polls were
 * answered that entry as a miss with `max-age=0`), 6620 (three instances: a dashboard back from
 * a hidden tab refolded member by member, 56 calls in 12 s where 35 do; a minute later the budget
 * lacked a refill's slot and a page read data 3 s old), 11262 (three instances and a sprayer with
 * a new address per request: a restarted instance answered the tier's copy at the end of a
 * fill's wait for the budget, did not keep it, since a set would abort the fill, and took the
 * query for new at the next poll: 429, the site's cap spent, while that copy was servable),
 * 13890 (two instances: one stopped for a restart 1 ms after a page's polls, whose lookups waited
 * on the tier; the close dropped the entries meanwhile, and five were answered 503 while copies
 * fetched 4 s before were servable), 13118 (two instances after a 107 s outage: a query whose
 * last try failed just before the service came back waited out its 30 s backoff, came back 5 ms
 * into a tick with no slot of its own, and pushed a window's last refill past the next tick: a
 * page read two queries 3.5 s old), 18657 and 19050 (one and two instances in a partial outage:
 * with 13118's backoffs ended at each answer after the last failure, the failing queries came
 * back at once, off the plan, again and again, and 60 s later the sliding minute was full when
 * the plan's refills came: a page read data 3 s old), 19200 (three instances, the tier lost and
 * back empty while one restarted: back on the tier, the instances that had granted alone held
 * their own bursts for a minute, the restarted one burst on a minute that lacked their calls,
 * and a sliding minute held 186 grants), 19272 (the simulation's own bug: at the end it closed the
 * instances with the clock stopped, and a lookup under way, which ends at a deadline on that
 * clock, kept the close and the run waiting forever), 20053 (three instances, one restarted while
 * the tier was lost: back on the tier, it answered a folded query from the tier's copy of the
 * group's wide query, read while its own fill of that query ran and so not kept; 3 s later the
 * group's wide query was the member itself, nothing here covered it, and the poll was answered
 * 503 while that copy was servable), 25994 (two instances and a sprayer: a new query's ask, sent
 * 1 ms before its window ended, reached the tier in the next window and took a slot the plan had
 * given a dashboard's refill there; the refill waited for the window after, and a poll read data
 * 3 s old).
 */
export const CAUGHT: readonly number[] = [
  10, 16, 19, 23, 72, 88, 122, 300, 302, 367, 465, 523, 588, 641, 986, 1051, 1077, 1405, 1762, 1875, 2314,
  2756, 4113, 4929, 5867, 6620, 11262, 13118, 13890, 18657, 19050, 19200, 19272, 20053, 25994,
];
/**
 * And the seeds that caught a bug with a variant of their scenario: seed 141 with its sprayer
 * taking a new address for every request (as drawn it keeps one): the per-address meter never
 * saw it twice; while the dashboard was hidden it took 134 of example.com's 183 grants in a
 * minute, and the dashboard came back to a full minute and read data 4 s old. The site's cap of
 * new queries (new-query-site-cap.ts) holds it to 60. And seed 145 as drawn, its three instances'
 * clocks 9.6 s behind, 9.3 s ahead and 8.4 s behind the tier's: with their time moved onto the
 * tier's only by the slots they took, two took none for 112 s, and served the third's copies,
 * 10 s old on the tier's clock, as fresh (tier-time.ts now reads the tier's clock at start).
 * And seed 29169 as drawn: an instance restarted while the tier was lost, its clock 6.3 s
 * behind, stepped onto the tier's time during a fill's call; the copy's freshness, counted from
 * before the step, had run out when it was stored, and the poll was answered `max-age=0`.
 */
export const CAUGHT_VARIANTS: readonly SeedRun[] = [
  { seed: 141, variant: { sprayer: 'rotating', clocks: 'together' } },
  { seed: 145, variant: {} },
  { seed: 29169, variant: {} },
];

/**
 * The caught seeds run with their instances' clocks on the tier's: as they ran when they caught
 * their bug, before the simulation drew clocks apart (a few milliseconds moved, most would no
 * longer meet the moment their bug needed).
 */
const caughtRuns = (): SeedRun[] => [
  ...CAUGHT.map((seed): SeedRun => ({ seed, variant: { clocks: 'together' } })),
  ...CAUGHT_VARIANTS,
];

/**
 * Seeds 1…`count` from `from` with `variant`, then, with `caught`, the caught runs not among
 * them: a run whose variant leaves the scenario as drawn (one instance, clocks together) is one
 * already made.
 */
export function seedRuns(count: number, from = 1, variant: Variant = {}, caught = false): SeedRun[] {
  const runs: SeedRun[] = Array.from({ length: count }, (_, index) => ({ seed: from + index, variant }));
  if (!caught) return runs;
  const scenario = (run: SeedRun) => JSON.stringify(scenarioOf(run.seed, 10, run.variant));
  const ran = new Set(runs.map(scenario));
  return [...runs, ...caughtRuns().filter((run) => !ran.has(scenario(run)))];
}
