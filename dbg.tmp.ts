import { simulate } from './test/simulation/simulate.ts';
const { record, scenario } = await simulate(3);
console.log(JSON.stringify(scenario.tierOutages), JSON.stringify(scenario.dashboards.map((d) => [d.openAt, d.closeAt, d.hidden, d.queries.length])));
for (const key of ['section=Desk1', 'section=Desk7']) {
  const g = record.grants.filter((x) => x.key.endsWith(key)).map((x) => `${x.grantedAt - 1_800_000_000_000}@${x.instance}`);
  console.log(key, g.slice(-12).join(' '));
  const p = record.polls.filter((x) => x.path.endsWith(key) && x.at > 560000).map((x) => `${x.at}@${x.instance}:${x.age}:${x.cacheStatus.slice(13, 60)}`);
  console.log(p.join('\n'));
}
