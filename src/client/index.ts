export {
  configure,
  getHub,
  PollHub,
  routeOf,
  MIN_INTERVAL_MS,
  type HubOptions,
  type SnapshotListener,
} from './hub.ts';
export { PollController, type SnapshotChange } from './poll-controller.ts';
export { systemClock, nextMultiple, type Clock } from './clock.ts';
export { replaceEqualDeep } from './structural-sharing.ts';
export type { PollError, PollErrorKind, PollSnapshot } from './snapshot.ts';
export {
  MultiPollController,
  type FailingSource,
  type Merge,
  type SourceData,
} from './multi-poll-controller.ts';
export { LazyPolling, FAR_AWAY_MS, type Switchable } from './lazy-polling.ts';
export type { WatchNear } from './viewport.ts';
