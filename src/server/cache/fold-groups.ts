/**
 * Fold groups (folding.ts): the queries that differ only in what folds, and the wide query that
 * answers them all, the union of what the group's members poll (folded-answers.ts derives each
 * member's answer from it). Only the wide key is filled, polled and planned; members are this
 * file's bookkeeping. With a shared tier, every instance folds the members polled on any of them.
 */
import { LRUCache } from 'lru-cache';
import { routes, type RouteName } from '../../api/index.ts';
import { lruTime } from '../../runtime/clock.ts';
import type { StoredResponse } from '../../runtime/stored-response.ts';
import { covers, foldMember, shapeQuery, union, type FoldShape } from './folding.ts';
import { servable } from './decision.ts';
import type { ResolvedOptions } from '../config/options.ts';
import type { SharedTier } from '../tier/shared-tier.ts';
import type { Entries, FillContext, KeyState, PolledKeys } from './polled-keys.ts';

/** The most wide queries of one group kept for their copies: a group's wide query changes as its members come and go. */
const RECENT_WIDE_QUERIES = 16;

/** One query of a fold group, as its clients poll it. */
export interface Member {
  key: string;
  shape: FoldShape;
  group: FoldGroup;
  lastRequestedAt: number;
  /** When this instance last told the shared tier it polls this member. */
  sharedAt?: number;
  /** Its answer derived from one wide answer, made once per wide fill. */
  derived?: Derived;
}

/** A member's own body derived from one wide answer (folded-answers.ts). */
export interface Derived {
  source: StoredResponse;
  made: Promise<StoredResponse>;
  /** What `made` resolved to, once it has: the fast hit path answers only from this. */
  ready?: StoredResponse;
  /** The answer last sent: `ready` with the source's freshness then (a stretch moves it). */
  answer?: StoredResponse;
}

/** Queries that differ only in what folds (docs/upstream-assumptions.md, "Query folding"). */
export interface FoldGroup {
  id: string;
  route: RouteName;
  host: string;
  members: Map<string, Member>;
  /** The wide query last computed from the active members, and when. */
  wide?: { key: string; query: string; shape: FoldShape; covered: ReadonlySet<Member> };
  computedAt: number;
  /** Wide queries filled lately, newest last: any servable one that covers a member answers it. */
  recent: Map<string, FoldShape>;
  /** A cold group waits this long for the rest of a dashboard's queries, so they share one fill. */
  gathering?: Promise<void>;
  /** When the members polled on other instances were last read from the shared tier. */
  syncedAt: number;
  syncing?: Promise<void>;
}

export interface FoldGroupsParts {
  options: ResolvedOptions;
  entries: Entries;
  keys: PolledKeys;
  /** The members other instances poll; without it this process folds what it is asked alone. */
  shared?: SharedTier;
}

export class FoldGroups {
  readonly #options: ResolvedOptions;
  readonly #entries: Entries;
  readonly #keys: PolledKeys;
  readonly #shared?: SharedTier;
  readonly #now: () => number;
  readonly #members: LRUCache<string, Member | false>;
  readonly #groups: LRUCache<string, FoldGroup>;

  constructor(parts: FoldGroupsParts) {
    this.#options = parts.options;
    this.#entries = parts.entries;
    this.#keys = parts.keys;
    this.#shared = parts.shared;
    this.#now = parts.options.clock.now;
    this.#members = new LRUCache<string, Member | false>({
      max: parts.options.cacheMaxEntries,
      ...lruTime(parts.options.clock),
    });
    this.#groups = new LRUCache<string, FoldGroup>({
      max: parts.options.cacheMaxEntries,
      ...lruTime(parts.options.clock),
    });
  }

  /**
   * Whether the hit path must leave a query to a lookup: one folded into another wide query
   * (its answer is derived from that fill), or one that folds but whose group has no wide query
   * here yet (a lookup computes it from the members every instance polls). Answered from its own
   * copy, a member polled on this instance only through the hit path never joined its group
   * here, kept its own key polled, and the plan refilled that key beside the group's wide query
   * for 20 s (seed 2314).
   */
  leftToFolding(key: string, context: FillContext): boolean {
    const member = this.memberOf(key, context);
    return member !== undefined && member.group.wide?.key !== key;
  }

  /** A servable wide answer (fresh, or within the stale window) covers the member, or a client polled it within the last interval. */
  coveredOrPolled(key: string, now: number): boolean {
    const member = this.#members.peek(key);
    return (
      !!member &&
      (this.covering(member.group, member, true) !== undefined ||
        now - member.lastRequestedAt <= this.#options.liveTtlMs)
    );
  }

  /**
   * The fast hit path answered `key`. A wide query is a member of its group here even if this
   * instance never looked it up (it keeps the key fresh from the tier's poll list): the other
   * instances keep it in their group only while some instance shares it, and without it they
   * filled the narrow queries apart.
   */
  countHit(key: string, context: FillContext): void {
    const member = this.memberOf(key, context);
    if (member) this.asked(member);
  }

  /** The fold member of a live canonical query, or undefined when it never folds. */
  memberOf(key: string, context: FillContext): Member | undefined {
    if (!routes[context.route].live) return undefined;
    let member = this.#members.get(key);
    if (member === undefined) {
      const fold = foldMember(context.route, context.query);
      if (fold) {
        const group = this.#group(fold.group, context.route, context.host);
        // Polled on another instance already: the same member.
        member = group.members.get(key) ?? { key, shape: fold.shape, group, lastRequestedAt: 0 };
      } else member = false;
      this.#members.set(key, member);
    }
    if (member && this.#groups.get(member.group.id) !== member.group)
      this.#groups.set(member.group.id, member.group);
    return member || undefined;
  }

  /**
   * The queries a planned key answers: the members of its fold group its shape covers, or 1.
   * With a shared tier the members come from the tier, so every instance weighs a key alike and
   * their plans agree slot for slot, including one that polls no member of the group itself.
   */
  pollersOf(state: KeyState, now: number): number {
    if (!state.context) return 1;
    const { route, query, host } = state.context;
    const fold = foldMember(route, query);
    if (!fold) return 1;
    const group = this.#group(fold.group, route, host);
    const interval = this.#options.liveTtlMs;
    if (this.#shared && now - group.syncedAt >= interval / 2) void this.syncMembers(group);
    let pollers = 0;
    for (const member of group.members.values())
      if (now - member.lastRequestedAt <= 2 * interval && covers(fold.shape, member.shape)) pollers += 1;
    return Math.max(1, pollers);
  }

  /**
   * A fold group, kept among the known ones from its first mention, so its members are synced from
   * the tier: a planned wide key may belong to a group that only another instance has been asked for.
   */
  #group(id: string, route: RouteName, host: string): FoldGroup {
    let group = this.#groups.get(id);
    if (!group) {
      group = {
        id,
        route,
        host,
        members: new Map(),
        computedAt: -Infinity,
        recent: new Map(),
        syncedAt: -Infinity,
      };
      this.#groups.set(id, group);
    }
    return group;
  }

  /**
   * A member was asked for: it is in its group as this very object, and shared; whether it
   * joined the group now. (In it as another object — it left the group unpolled, and the tier's
   * sync put it back as a new one — the wide query covered that one, and this member filled its
   * own query as well, every tick, for as long as it was polled.)
   */
  asked(member: Member): boolean {
    const joined = member.group.members.get(member.key) !== member;
    member.lastRequestedAt = this.#now();
    if (joined) member.group.members.set(member.key, member);
    this.#share(member);
    return joined;
  }

  /**
   * Whether a lookup of the member would ask for it with nothing to wait for first: it is in its
   * group already (joining changes the wide query), the group is not idle here (`resume`), and no
   * sync with the shared tier is under way or due (the lookup waits for one).
   */
  steady(member: Member): boolean {
    const { group } = member;
    const now = this.#now();
    return (
      group.members.get(member.key) === member &&
      group.syncing === undefined &&
      (!this.#shared || now - group.syncedAt < this.#options.liveTtlMs / 2) &&
      !this.#idleHere(group, now)
    );
  }

  /**
   * A group none of whose members was asked for two intervals (a hidden tab) comes back whole
   * when one of the members its wide query covered is asked again while that answer is
   * servable: they all count as asked again (and are shared), so the returning tab's queries
   * are answered from it, and its refill is one fill. Those not asked again leave two intervals
   * later, as ever; a new member asking an idle group starts it afresh. Called before the
   * member is asked: with a shared tier, a member asked on another instance within two
   * intervals (the tier's set, which this ask has not joined yet) means the group is not idle.
   * (Rebuilt member by member, a dashboard back from 52 s in a hidden tab filled 16 queries for
   * four ticks where 8 serve it, 56 calls in 12 s as bursts, and a minute later the budget
   * lacked a refill's slot: seed 6620. Judged idle on one instance while another polled a
   * member, a group took back a member whose dashboard had closed and refilled it for nobody:
   * seed 70.) Synchronous unless the tier must be asked: an await before every ask let a crowd's
   * requests of one new query each find it unpolled, and the per-client meter refused them.
   */
  resume(member: Member): Promise<void> | undefined {
    const { group } = member;
    const wide = group.wide;
    const now = this.#now();
    if (!wide?.covered.has(member) || !this.#idleHere(group, now)) return undefined;
    const stored = this.#entries.peek(wide.key);
    if (!stored || !servable(stored, now, this.#options.staleWindowMs)) return undefined;
    const restore = () => {
      const now = this.#now();
      if (group.wide !== wide || !this.#idleHere(group, now)) return;
      for (const covered of wide.covered)
        if (group.members.get(covered.key) === covered) {
          covered.lastRequestedAt = now;
          this.#share(covered);
        }
    };
    if (!this.#shared) return void restore();
    return this.#shared.members(group.id).then((keys) => {
      if ((keys ?? []).length === 0) restore();
    });
  }

  /** No member of the group was asked here for two intervals (checked on every folded lookup). */
  #idleHere(group: FoldGroup, now: number): boolean {
    const idle = 2 * this.#options.liveTtlMs;
    for (const known of group.members.values()) if (now - known.lastRequestedAt <= idle) return false;
    return true;
  }

  /**
   * With a shared tier, every instance folds the members polled on any of them: each tells the
   * tier what it polls (for two intervals, renewed every half interval) and reads the others'
   * every half interval, so all compute the same wide query and its lease fills it once.
   */
  #share(member: Member): void {
    if (!this.#shared) return;
    const now = this.#now();
    const interval = this.#options.liveTtlMs;
    if (member.sharedAt === undefined || now - member.sharedAt >= interval / 2) {
      member.sharedAt = now;
      void this.#shared.join(member.group.id, member.key, 2 * interval);
    }
    if (now - member.group.syncedAt >= interval / 2) void this.syncMembers(member.group);
  }

  /**
   * Adds the members other instances poll to the group, as polled now. (One that stops being
   * polled leaves the tier after two intervals and the group two intervals later.)
   */
  syncMembers(group: FoldGroup): Promise<void> {
    if (!this.#shared) return Promise.resolve();
    group.syncing ??= this.#shared
      .members(group.id)
      .then((keys) => {
        const now = this.#now();
        group.syncedAt = now;
        let joined = false;
        for (const key of keys ?? []) {
          const known = group.members.get(key);
          if (known) {
            known.lastRequestedAt = Math.max(known.lastRequestedAt, now);
            continue;
          }
          // Only what parses as a member of this very group joins it.
          const prefix = `${routes[group.route].path}?`;
          const fold = key.startsWith(prefix) ? foldMember(group.route, key.slice(prefix.length)) : undefined;
          if (fold?.group !== group.id) continue;
          // The member this instance knows the key by, if any: one object per member.
          const mine = this.#members.peek(key);
          const member =
            mine && mine.group === group ? mine : { key, shape: fold.shape, group, lastRequestedAt: now };
          member.lastRequestedAt = Math.max(member.lastRequestedAt, now);
          group.members.set(key, member);
          joined = true;
        }
        // A member polled elsewhere widens the wide query now, not at this instance's next
        // lookup: until then the hit path answered the narrower one from its own copy (seed 2314).
        if (joined && group.wide) this.wideOf(group, true);
      })
      .finally(() => (group.syncing = undefined));
    return group.syncing;
  }

  /**
   * The group's wide query: the union of the members polled within two intervals (bounded:
   * limit ≤ 100, 20 metrics; a member past the bounds is filled alone). Members gone longer
   * leave the group, so the wide query shrinks back and the old one is no longer refreshed.
   */
  wideOf(group: FoldGroup, force: boolean): NonNullable<FoldGroup['wide']> {
    const now = this.#now();
    const interval = this.#options.liveTtlMs;
    if (!force && group.wide && now - group.computedAt < interval / 10) return group.wide;
    let shape: FoldShape | undefined;
    const covered = new Set<Member>();
    for (const member of [...group.members.values()].sort((a, b) => (a.key < b.key ? -1 : 1))) {
      if (now - member.lastRequestedAt > 2 * interval) {
        group.members.delete(member.key);
        member.derived = undefined;
        continue;
      }
      const next: FoldShape | undefined = shape ? union(shape, member.shape) : member.shape;
      if (next) {
        shape = next;
        covered.add(member);
      }
    }
    shape ??= { flags: new Set() };
    const query = shapeQuery(group.route, group.id, shape);
    const key = `${routes[group.route].path}?${query}`;
    const previous = group.wide?.key;
    // The old wide query is no longer planned; a fill of it already queued still answers its waiters.
    if (previous !== undefined && previous !== key) {
      const state = this.#keys.peek(previous);
      if (state) state.retired = true;
    }
    group.wide = { key, query, shape, covered };
    group.computedAt = now;
    group.recent.delete(key);
    group.recent.set(key, shape);
    this.#forgetUnservable(group, now);
    return group.wide;
  }

  /**
   * Keeps the group's lately filled wide queries while their copies are servable or their fill
   * is under way (and the current one, whose fill may be pending), at most RECENT_WIDE_QUERIES,
   * oldest out first. Kept by count alone (4), a group whose members came and went on an
   * instance (during a tier loss each instance sees a share of a dashboard's polls) dropped the
   * one wide query that still had a copy, and a member waiting for a failing fill was answered
   * 503 (seed 144). Dropped while its first fill was under way, a replaced wide query's copy,
   * when it landed, answered no member, and one was answered 503 beside it (seed 2308).
   */
  #forgetUnservable(group: FoldGroup, now: number): void {
    for (const key of group.recent.keys()) {
      if (key === group.wide?.key) continue;
      const stored = this.#entries.peek(key);
      if (this.#keys.peek(key)?.filling || (stored && servable(stored, now, this.#options.staleWindowMs)))
        continue;
      group.recent.delete(key);
    }
    if (group.recent.size > RECENT_WIDE_QUERIES) group.recent.delete(group.recent.keys().next().value!);
  }

  /** The newest stored wide answer of the group that covers the member: fresh, or servable stale. */
  covering(
    group: FoldGroup,
    member: Member,
    staleToo: boolean,
  ): { key: string; stored: StoredResponse } | undefined {
    const now = this.#now();
    let best: { key: string; stored: StoredResponse } | undefined;
    for (const [key, shape] of group.recent) {
      if (!covers(shape, member.shape)) continue;
      const stored = this.#entries.peek(key);
      if (
        !stored ||
        !(staleToo ? servable(stored, now, this.#options.staleWindowMs) : now < stored.freshUntil)
      )
        continue;
      if (!best || stored.fetchedAt > best.stored.fetchedAt) best = { key, stored };
    }
    return best;
  }
}
