import type { ReactiveControllerHost } from 'lit';
import { PollController, type SnapshotChange } from './poll-controller.ts';
import { changesView, INITIAL_SNAPSHOT, type PollError, type PollSnapshot } from './snapshot.ts';

/** One source of a merge: its address, the site it is for and its latest data. */
export interface SourceData<T> {
  readonly url: string;
  /** The `host` of `url`: the site ID. */
  readonly site: string;
  readonly data: T;
}

/** A source that failed at its last attempt (its last good data, if any, is still in the merge). */
export interface FailingSource {
  readonly site: string;
  readonly error: PollError;
}

export type Merge<T> = (parts: readonly SourceData<T>[]) => T;

/**
 * Several URLs of the page's hub as one source: `url` is their space-separated list. Each URL is
 * polled as if alone (one PollController each, so one request per URL per tick); what they hold
 * is merged into one body of the same shape. A single URL passes through unmerged. One URL
 * failing does not break the merge: its last good data stays in, and it is listed in `failing`.
 */
export class MultiPollController<T> {
  /** The sources whose last attempt failed while others have data: the merge is partial. */
  failing: readonly FailingSource[] = [];
  readonly #host: ReactiveControllerHost;
  readonly #onChange: SnapshotChange<T>;
  readonly #merge: Merge<T>;
  #url: string | undefined;
  #parts: { controller: PollController<T>; site: string }[] = [];
  /** The data objects of the last merge, so unchanged inputs keep the merged object's identity. */
  #merged: { inputs: (T | undefined)[]; data: T } | undefined;
  #snapshot: PollSnapshot<T> = INITIAL_SNAPSHOT;
  /** While `url` subscribes its parts one by one: they are merged once, all set. */
  #starting = false;
  #active = true;

  constructor(host: ReactiveControllerHost, onChange: SnapshotChange<T>, merge: Merge<T>) {
    this.#host = host;
    this.#onChange = onChange;
    this.#merge = merge;
  }

  /**
   * What is known now. A new `updatedAt` alone tells no listener (nothing to render), so the
   * merged one, the oldest of the sources', is read when asked.
   */
  get snapshot(): PollSnapshot<T> {
    if (this.#parts.length < 2) return this.#parts[0]?.controller.snapshot ?? this.#snapshot;
    const updatedAt = oldest(this.#parts.map(({ controller }) => controller.snapshot));
    if (updatedAt !== this.#snapshot.updatedAt) this.#snapshot = { ...this.#snapshot, updatedAt };
    return this.#snapshot;
  }

  get url(): string | undefined {
    return this.#url;
  }

  /** Whether to poll: every part follows (see {@link PollController.active}). */
  get active(): boolean {
    return this.#active;
  }

  set active(active: boolean) {
    this.#active = active;
    for (const { controller } of this.#parts) controller.active = active;
  }

  set url(url: string | undefined) {
    if (url === this.#url) return;
    this.#url = url;
    for (const { controller } of this.#parts) {
      controller.url = undefined;
      this.#host.removeController(controller);
    }
    this.#merged = undefined;
    const urls = url?.split(' ').filter(Boolean) ?? [];
    this.#parts = urls.map((part) => ({
      controller: new PollController<T>(this.#host, () => this.#combine()),
      site: new URL(part).searchParams.get('host') ?? part,
    }));
    this.#starting = true;
    this.#parts.forEach(({ controller }, index) => {
      controller.active = this.#active;
      controller.url = urls[index];
    });
    this.#starting = false;
    this.#combine();
  }

  #combine(): void {
    if (this.#starting) return;
    const snapshots = this.#parts.map(({ controller }) => controller.snapshot);
    const withData = this.#parts.filter(({ controller }) => controller.snapshot.data !== undefined);
    let next: PollSnapshot<T>;
    if (this.#parts.length === 1) {
      next = snapshots[0]!;
    } else {
      const inputs = snapshots.map((snapshot) => snapshot.data);
      // The first merge waits for every site to answer (data or error): one merged too early
      // would show the late sites' rows as new ones at the next update.
      const answered = snapshots.every(
        (snapshot) => snapshot.data !== undefined || snapshot.error !== undefined,
      );
      if (withData.length === 0 || (!this.#merged && !answered)) {
        this.#merged = undefined;
      } else if (!this.#merged || inputs.some((data, index) => data !== this.#merged!.inputs[index])) {
        const parts = withData.map(({ controller, site }) => ({
          url: controller.url!,
          site,
          data: controller.snapshot.data!,
        }));
        this.#merged = { inputs, data: this.#merge(parts) };
      }
      const errors = this.#parts.filter(({ controller }) => controller.snapshot.error);
      next = {
        data: this.#merged?.data,
        // With nothing to show, the card says why (the first failure); with data, failures are partial.
        error:
          !this.#merged && errors.length === this.#parts.length
            ? errors[0]!.controller.snapshot.error
            : undefined,
        stale:
          !!this.#merged &&
          withData.some(({ controller }) => controller.snapshot.stale && !controller.snapshot.error),
        paused: snapshots.some((snapshot) => snapshot.paused),
        updatedAt: oldest(snapshots),
      };
    }
    const failing =
      this.#parts.length > 1 && next.data !== undefined
        ? this.#parts
            .filter(({ controller }) => controller.snapshot.error)
            .map(({ controller, site }) => ({ site, error: controller.snapshot.error! }))
        : [];
    const failingChanged = failing.map(describe).join() !== this.failing.map(describe).join();
    if (failingChanged) this.failing = failing;
    const previous = this.#snapshot;
    this.#snapshot = next;
    if (changesView(previous, next) || failingChanged) {
      this.#onChange(next, previous);
      this.#host.requestUpdate();
    }
  }
}

function oldest(snapshots: readonly PollSnapshot[]): number | undefined {
  let at: number | undefined;
  for (const { updatedAt } of snapshots)
    if (updatedAt !== undefined && (at === undefined || updatedAt < at)) at = updatedAt;
  return at;
}

function describe({ site, error }: FailingSource): string {
  return `${site} ${error.message}`;
}
