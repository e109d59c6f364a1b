/**
 * The answers of folded queries: a member is answered from its group's wide fill (the union of
 * what the group's members poll), its own body derived from the wide answer once per fill, and
 * a Cache-Status that names the wide key (fold-groups.ts keeps the groups).
 */
import { storeBody, type CacheStatus, type StoredResponse } from '../../runtime/stored-response.ts';
import { covers, deriveAnswer } from './folding.ts';
import type { CacheMetrics } from '../metrics.ts';
import type { ResolvedOptions } from '../config/options.ts';
import { type Lookup, servable } from './decision.ts';
import type { Derived, FoldGroups, Member } from './fold-groups.ts';
import type { KeyLookup } from './key-lookup.ts';
import type { Entries, FillContext, PolledKeys } from './polled-keys.ts';

/** A stored wide answer of a member's group. */
type Copy = { key: string; stored: StoredResponse };

/** The copy fetched last. */
const newest = (copies: readonly (Copy | undefined)[]): Copy | undefined =>
  copies.reduce<Copy | undefined>(
    (last, next) => (next && (!last || next.stored.fetchedAt > last.stored.fetchedAt) ? next : last),
    undefined,
  );

/** A member's fresh answer the fast hit path may send at once (`FoldedAnswers.freshHit`). */
export interface FoldedHit {
  stored: StoredResponse;
  /** The Cache-Status: a hit, naming the wide key. */
  status: { kind: 'hit'; folded: string };
  /** The wide query the answer was derived from, which the hit counts as polled. */
  wideKey: string;
  wideContext: FillContext;
}

export interface FoldedAnswersParts {
  groups: FoldGroups;
  options: ResolvedOptions;
  entries: Entries;
  keys: PolledKeys;
  metrics: CacheMetrics;
  /** The lookup of one key, unfolded: a wide query's, or a member's filled alone. */
  lookups: KeyLookup;
}

export class FoldedAnswers {
  readonly #groups: FoldGroups;
  readonly #options: ResolvedOptions;
  readonly #entries: Entries;
  readonly #keys: PolledKeys;
  readonly #metrics: CacheMetrics;
  readonly #lookups: KeyLookup;
  readonly #now: () => number;
  /** Wide answers parsed once per fill, for every member derived from them. */
  readonly #parsed = new WeakMap<StoredResponse, unknown>();

  constructor(parts: FoldedAnswersParts) {
    this.#groups = parts.groups;
    this.#options = parts.options;
    this.#entries = parts.entries;
    this.#keys = parts.keys;
    this.#metrics = parts.metrics;
    this.#lookups = parts.lookups;
    this.#now = parts.options.clock.now;
  }

  /**
   * A member's answer. A passive lookup (the history recorder) joins no fold group, but a fresh
   * wide answer that covers it answers it: otherwise its fill, once a minute, took a slot of the
   * refresh plan.
   */
  lookup(member: Member, context: FillContext): Promise<Lookup> {
    if (!context.passive) return this.#lookupFolded(member, context);
    const covering = this.#groups.covering(member.group, member, false);
    return covering
      ? this.#foldedAnswer(member, covering.key, covering.stored, { kind: 'hit' })
      : this.#lookups.lookup(member.key, context);
  }

  /**
   * A client's poll of the member answered at once, when its lookup would be a fresh hit with
   * nothing to wait for: the member steady in its group (`FoldGroups.steady`), the wide answer
   * that covers it fresh, and the member's body derived from that answer already. It asks for
   * the member and reads the wide query as the lookup does, in the same order; undefined leaves
   * the rest to `lookup`, whose repeat of those steps at the same instant changes nothing. (Left
   * to the Web handler, a folded hit had a sixth of a plain hit's throughput: BENCHMARKS.md.)
   */
  freshHit(member: Member, context: FillContext): FoldedHit | undefined {
    if (!this.#groups.steady(member)) return undefined;
    this.#groups.asked(member);
    const wide = this.#groups.wideOf(member.group, false);
    if (wide.key === member.key || !wide.covered.has(member)) return undefined;
    const source = this.#entries.peek(wide.key);
    const derived = member.derived;
    if (!source || this.#now() >= source.freshUntil || derived?.source !== source || !derived.ready)
      return undefined;
    return {
      stored: this.#answerOf(derived, derived.ready),
      status: { kind: 'hit', folded: wide.key },
      wideKey: wide.key,
      wideContext: { route: context.route, host: context.host, query: wide.query },
    };
  }

  /**
   * A folded query: answered from the group's wide fill (the union of what its members ask),
   * or from any fresh wide fill of the group that covers it while the wide query changes.
   */
  async #lookupFolded(member: Member, context: FillContext): Promise<Lookup> {
    const group = member.group;
    const resuming = this.#groups.resume(member);
    if (resuming) await resuming;
    const joined = this.#groups.asked(member);
    // A sync with the tier that this ask started ends first: the wide query is the union of the
    // members polled on every instance. (Without it, a member polled only elsewhere for two
    // intervals was left out here, and this one filled alone, past the plan: seed 300.)
    const syncing = group.syncing;
    if (syncing) await syncing;
    let wide = this.#groups.wideOf(group, joined || syncing !== undefined);
    if (
      !this.#groups.covering(group, member, true) &&
      !(wide.covered.has(member) && this.#keys.peek(wide.key)?.filling)
    ) {
      // Cold for this member: a dashboard opening sends its queries together, to every instance;
      // one fill serves them all.
      group.gathering ??= this.#options.clock
        .sleep(this.#options.liveTtlMs / 30)
        .finally(() => (group.gathering = undefined));
      await group.gathering;
      await this.#groups.syncMembers(group);
      wide = this.#groups.wideOf(group, true);
    }
    if (!wide.covered.has(member) || wide.key === member.key) {
      const held = this.#groups.covering(group, member, true);
      return this.#orCoveringCopy(member, await this.#lookups.lookup(member.key, context), held);
    }
    const wideContext: FillContext = { route: context.route, host: context.host, query: wide.query };
    const current = this.#entries.peek(wide.key);
    let held: Copy | undefined;
    if (!current || this.#now() >= current.freshUntil) {
      const other = this.#groups.covering(group, member, false);
      if (other) {
        // The wide query is still the one to keep fresh: poll it, without making this client wait.
        void this.#lookups.lookup(wide.key, wideContext).catch(() => undefined);
        return this.#foldedAnswer(member, other.key, other.stored, { kind: 'hit' });
      }
      held = this.#groups.covering(group, member, true);
    }
    const lookup = await this.#lookups.lookup(wide.key, wideContext);
    return lookup.kind === 'stored'
      ? this.#foldedAnswer(member, wide.key, lookup.stored, lookup.status)
      : this.#orCoveringCopy(member, lookup, held);
  }

  /**
   * No error while a copy exists: when the query the member is answered from has nothing to
   * serve (its wide query changed, and the new one's first fill failed), the newest servable
   * copy answers it, stale: a wide answer of the group that covers the member, or the member's
   * own (filled alone while the group was another, its key since gone from the group's recent
   * wide queries: 503 after a tier loss, seed 302), or the copy held before the wait if none is
   * left in the store (the instance closing cleared it: a poll waiting for a fill during a
   * restart was answered 503, seed 198; or it was evicted), or with none here, the tier's.
   */
  async #orCoveringCopy(member: Member, lookup: Lookup, held?: Copy): Promise<Lookup> {
    if (lookup.kind === 'stored') return lookup;
    const orNone = (copy: Copy | undefined) =>
      copy && servable(copy.stored, this.#now(), this.#options.staleWindowMs) ? copy : undefined;
    const own = this.#entries.peek(member.key);
    const copy =
      newest([
        this.#groups.covering(member.group, member, true),
        orNone(own && { key: member.key, stored: own }),
        orNone(held),
      ]) ?? (await this.#tierCopy(member));
    if (!copy) return lookup;
    return this.#foldedAnswer(member, copy.key, copy.stored, {
      kind: 'stale',
      detail: lookup.detail,
    });
  }

  /**
   * Nothing servable here: the newest servable copy the shared tier holds of a recent wide query
   * of the group that covers the member. A tier copy read while its key's own fill ran answers
   * that lookup but is not kept (a `set` aborts the fill), so the member's next lookup found no
   * copy here: 503, 3 s after the same instance had answered the member from it (seed 20053).
   */
  async #tierCopy(member: Member): Promise<Copy | undefined> {
    const { group } = member;
    const copies = await Promise.all(
      [...group.recent]
        .filter(([, shape]) => covers(shape, member.shape))
        .map(async ([key]): Promise<Copy | undefined> => {
          const query = key.slice(key.indexOf('?') + 1);
          const stored = await this.#lookups.servableCopy(key, {
            route: group.route,
            host: group.host,
            query,
          });
          return stored && { key, stored };
        }),
    );
    return newest(copies);
  }

  /** The member's own body (and ETag), the wide answer's timing, and a Cache-Status naming the wide key. */
  async #foldedAnswer(
    member: Member,
    wideKey: string,
    source: StoredResponse,
    status: CacheStatus,
  ): Promise<Lookup> {
    if (member.derived?.source !== source) {
      const made = (async () => {
        let wide = this.#parsed.get(source);
        if (wide === undefined)
          this.#parsed.set(source, (wide = JSON.parse(source.identity.toString()) as unknown));
        const { startedAt, fetchedAt, freshUntil } = source;
        return storeBody(
          JSON.stringify(deriveAnswer(member.group.route, wide, member.shape)),
          { startedAt, fetchedAt, freshUntil },
          this.#options.encodeBody,
        );
      })();
      const derived: Derived = { source, made };
      void made.then(
        (ready) => (derived.ready = ready),
        () => undefined,
      );
      member.derived = derived;
    }
    const derived = member.derived;
    const ready = await derived.made;
    this.#metrics.folded.inc({ route: member.group.route });
    return { kind: 'stored', stored: this.#answerOf(derived, ready), status: { ...status, folded: wideKey } };
  }

  /**
   * The member's derived body with its source's freshness, which a stretch may have moved since:
   * it decides. One object while it holds, so the hit path's header lines made for it are reused.
   */
  #answerOf(derived: Derived, ready: StoredResponse): StoredResponse {
    const { freshUntil } = derived.source;
    if (derived.answer?.freshUntil !== freshUntil) derived.answer = { ...ready, freshUntil };
    return derived.answer;
  }
}
