/**
 * Realistic live queries of one site, as a newsroom's dashboards ask them: limits, flags,
 * quickstats variants, summary keys and filtered top pages. Every prefix is itself a plausible
 * dashboard (the first 4 are the demo page's kinds), so bench/freshness.mjs measures 4, 8, 12, 20
 * and 30 of them; the first 20 hold the three filtered toppages the target names.
 */
export const DASHBOARD_QUERIES: readonly string[] = [
  '/live/quickstats/v4/?host=example.com',
  '/live/toppages/v3/?host=example.com&limit=10',
  '/live/referrers/v3/?host=example.com&limit=10',
  '/live/top_geo/v1/?host=example.com&limit=10',
  '/live/quickstats/v4/?host=example.com&all_platforms=1',
  '/live/toppages/v3/?host=example.com&limit=5',
  '/live/summary/v3/?host=example.com&keys=new',
  '/live/toppages/v3/?host=example.com&limit=10&section=Politics',
  '/live/quickstats/v4/?host=example.com&loyalty=1',
  '/live/referrers/v3/?host=example.com&limit=5',
  '/live/top_geo/v1/?host=example.com&limit=5',
  '/live/summary/v3/?host=example.com&keys=new,read,time_spent',
  '/live/toppages/v3/?host=example.com&limit=20&types=1',
  '/live/toppages/v3/?host=example.com&limit=10&sort_by=social',
  '/live/summary/v3/?host=example.com&keys=domain,title',
  '/live/quickstats/v4/?host=example.com&all_platforms=1&loyalty=1&now_on=1',
  '/live/toppages/v3/?host=example.com&limit=10&loyalty=1&all_platforms=1',
  '/live/toppages/v3/?host=example.com&limit=5&author=Ann%20Lee',
  '/live/referrers/v3/?host=example.com&limit=20',
  '/live/toppages/v3/?host=example.com&limit=8&now_on=1&metrics=_pw,_rv',
  '/live/toppages/v3/?host=example.com&limit=10&section=Tech',
  '/live/toppages/v3/?host=example.com&limit=10&section=Sport',
  '/live/quickstats/v4/?host=example.com&section=News',
  '/live/quickstats/v4/?host=example.com&path=%2F',
  '/live/summary/v3/?host=example.com&keys=referrer',
  '/live/referrers/v3/?host=example.com&limit=10&path=%2F',
  '/live/toppages/v3/?host=example.com&limit=10&sort_by=engaged_time&exclude_people=2',
  '/live/top_geo/v1/?host=example.com&limit=20',
  '/live/quickstats/v4/?host=example.com&types=1',
  '/live/toppages/v3/?host=example.com&limit=30',
];
