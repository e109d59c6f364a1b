/**
 * Test doubles for the poll hub: a clock moved by hand and a fetch answered by a handler, both
 * injected through `configure()`. No test sleeps on real time.
 */
import { configure, getHub, type Clock, type HubOptions } from '../../src/client/index.ts';

interface Timer {
  at: number;
  callback: () => void;
}

/** 2025-01-01T12:00:00.500Z: half a second past a 3 s boundary. */
export const START_TIME = Date.UTC(2025, 0, 1, 12, 0, 0, 500);

export class FakeClock implements Clock {
  #now: number;
  readonly #timers = new Map<number, Timer>();
  #nextId = 1;

  constructor(start = START_TIME) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): number {
    const id = this.#nextId++;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Moves time forward by `ms`, firing due timers in order and letting the hub settle after each. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#timers]
        .filter(([, timer]) => timer.at <= end)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      const [id, timer] = due;
      this.#timers.delete(id);
      this.#now = Math.max(this.#now, timer.at);
      timer.callback();
      await settle();
    }
    this.#now = end;
    await settle();
  }

  /** Moves to the next wall-clock multiple of `interval` (the hub's next tick). */
  async toNextTick(interval = 3000): Promise<void> {
    await this.advance(interval - (this.#now % interval));
  }
}

/** Lets the hub finish its requests and Lit its renders. */
export async function settle(): Promise<void> {
  await getHub().settled();
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => queueMicrotask(resolve));
}

export type Handler = (request: Request) => Response | Promise<Response>;

/** A fetch that records every request and answers it with `handler`. */
export class FakeServer {
  readonly requests: Request[] = [];
  handler: Handler;

  constructor(handler: Handler) {
    this.handler = handler;
  }

  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    this.requests.push(request);
    return this.handler(request);
  };

  /** Requests whose URL contains `part` (all when omitted). */
  count(part = ''): number {
    return this.requests.filter((request) => request.url.includes(part)).length;
  }
}

export interface ReplyOptions {
  status?: number;
  etag?: string;
  /** Age of the data in ms at the clock's now (sent as Last-Modified with a Date header). */
  age?: number;
  headers?: Record<string, string>;
}

/** A JSON response stamped like our cache endpoint's: ETag, Last-Modified, Date. */
export function reply(clock: Clock, body: unknown, options: ReplyOptions = {}): Response {
  const headers = new Headers(options.headers);
  headers.set('Content-Type', 'application/json');
  if (options.etag) headers.set('ETag', options.etag);
  headers.set('Date', new Date(clock.now()).toUTCString());
  headers.set('Last-Modified', new Date(clock.now() - (options.age ?? 0)).toUTCString());
  const status = options.status ?? 200;
  return new Response(status === 304 ? null : JSON.stringify(body), { status, headers });
}

/** A promise resolved from outside: holds a response back until the test says so. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * Replaces the page's hub with a fresh one on a fake clock and fake fetch, on a page that looks
 * visible and online (WTR runs test files side by side, so a real tab may well be hidden).
 */
export function freshHub(
  handler: Handler,
  options: Pick<HubOptions, 'interval' | 'watchNear'> = {},
): { clock: FakeClock; server: FakeServer } {
  getHub().dispose();
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => true });
  const clock = new FakeClock();
  const server = new FakeServer(handler);
  configure({ clock, fetch: server.fetch, random: () => 0.5, ...options });
  return { clock, server };
}

/** Makes the page look hidden (or visible again) and tells the hub. */
export function setPageHidden(hidden: boolean): void {
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  document.dispatchEvent(new Event('visibilitychange'));
}

/** Makes the browser look offline (or online again) and tells the hub. */
export function setOnline(online: boolean): void {
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => online });
  window.dispatchEvent(new Event(online ? 'online' : 'offline'));
}

/** Fails the current test on any Lit dev-mode warning other than the "dev mode" notice. */
export function failOnLitWarnings(): void {
  const original = console.warn;
  let warnings: string[] = [];
  beforeEach(() => {
    warnings = [];
    console.warn = (...args: unknown[]) => {
      const text = args.map(String).join(' ');
      if (!text.includes('Lit is in dev mode')) warnings.push(text);
      original.apply(console, args);
    };
  });
  afterEach(() => {
    console.warn = original;
    if (warnings.length > 0) throw new Error(`Unexpected warnings:\n${warnings.join('\n')}`);
  });
}

/**
 * Waits for the pulse elements in `root` to render, fetch and render their data. (open-wc's
 * `fixture` waits a frame for a plain root, and background tabs get no frames: use `fixtureSync`.)
 */
export async function settleElements(root: Element): Promise<void> {
  const elements = () =>
    [...root.querySelectorAll('*')].filter((node) => 'updateComplete' in node) as unknown as {
      updateComplete: Promise<boolean>;
    }[];
  await Promise.all(elements().map((el) => el.updateComplete));
  await settle();
  await Promise.all(elements().map((el) => el.updateComplete));
}
