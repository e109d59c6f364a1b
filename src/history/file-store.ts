/**
 * History on local disk under PULSE_DATA_DIR: an append-only log, one segment per host per UTC
 * day (`history/<host>/<YYYY-MM-DD>.log`), one JSON line per minute. Each line is fsynced before
 * the minute counts as recorded, and a new segment's directory entry is fsynced too, so a crash
 * loses at most the line being written. On open, a torn last line (no newline, or not JSON) is
 * cut off, so the next append starts on a clean line. Disk is bounded: segments older than
 * 35 days are deleted, about 130 kB per host per day. One process per directory (a lock file
 * says which); several instances share history through Redis instead.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rm, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { SampleBook } from './sample-book.ts';
import { DAY_MS, KEEP_DAYS, METRIC_COUNT, minuteOf } from './samples.ts';
import type { HistoryStore } from './store.ts';

const SEGMENT = /^(\d{4}-\d{2}-\d{2})\.log$/;

function dayName(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** What opening found, for the log line the server writes. */
export interface OpenReport {
  samples: number;
  /** Segments whose torn last line was cut off. */
  repaired: string[];
  /** Segments older than the kept 35 days, deleted. */
  deleted: number;
}

export class FileStore implements HistoryStore {
  readonly #root: string;
  readonly #book = new SampleBook();
  readonly #segments = new Map<string, { day: number; handle: FileHandle }>();
  /** Appends of one host run one after another, so lines never interleave. */
  readonly #queues = new Map<string, Promise<unknown>>();
  #lockPath: string;

  private constructor(root: string) {
    this.#root = root;
    this.#lockPath = join(root, 'history.lock');
  }

  /** Opens (creating it if needed) the history under `dataDir`, repairing a torn last write. */
  static async open(dataDir: string, now: number): Promise<{ store: FileStore; report: OpenReport }> {
    const root = join(dataDir, 'history');
    await mkdir(root, { recursive: true });
    const store = new FileStore(root);
    store.#lock();
    const report: OpenReport = { samples: 0, repaired: [], deleted: 0 };
    const oldest = Math.floor(now / DAY_MS) - KEEP_DAYS;
    for (const entry of await readdir(root, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const host = decodeURIComponent(entry.name);
      for (const file of await readdir(join(root, entry.name))) {
        const match = SEGMENT.exec(file);
        if (!match) continue;
        const path = join(root, entry.name, file);
        if (Date.parse(match[1]!) / DAY_MS < oldest) {
          await unlink(path);
          report.deleted++;
          continue;
        }
        report.samples += await store.#load(host, path, report);
      }
    }
    return { store, report };
  }

  /** Reads a segment into memory; cuts a torn last line off the file. */
  async #load(host: string, path: string, report: OpenReport): Promise<number> {
    const bytes = await readFile(path);
    let good = 0;
    let samples = 0;
    for (let start = 0; start < bytes.length; ) {
      const newline = bytes.indexOf(10, start);
      // Only the last write can be torn: a line without its newline, or not whole JSON, ends the log.
      const row = newline === -1 ? undefined : parseLine(bytes.subarray(start, newline).toString());
      if (!row) break;
      if (this.#book.put(host, row.t, row.values)) samples++;
      good = start = newline + 1;
    }
    if (good < bytes.length) {
      await truncate(path, good);
      report.repaired.push(path);
    }
    return samples;
  }

  async claim(host: string, t: number): Promise<boolean> {
    return !this.#book.has(host, minuteOf(t));
  }

  async record(host: string, t: number, values: readonly number[]): Promise<boolean> {
    const minute = minuteOf(t);
    if (!this.#book.put(host, minute, values)) return false;
    const line = `${JSON.stringify([minute, ...values.slice(0, METRIC_COUNT).map((value) => (Number.isNaN(value) ? null : value))])}\n`;
    const previous = this.#queues.get(host) ?? Promise.resolve();
    const append = previous.then(() => this.#append(host, minute, line));
    this.#queues.set(
      host,
      append.catch(() => undefined),
    );
    await append;
    return true;
  }

  async column(host: string, metric: number, from: number, minutes: number): Promise<Float64Array> {
    return this.#book.column(host, metric, from, minutes);
  }

  async close(): Promise<void> {
    await Promise.all(this.#queues.values());
    for (const { handle } of this.#segments.values()) await handle.close();
    this.#segments.clear();
    await rm(this.#lockPath, { force: true });
  }

  async #append(host: string, minute: number, line: string): Promise<void> {
    const day = Math.floor(minute / DAY_MS);
    let segment = this.#segments.get(host);
    if (segment?.day !== day) {
      await segment?.handle.close();
      const folder = join(this.#root, encodeURIComponent(host));
      await mkdir(folder, { recursive: true });
      const handle = await open(join(folder, `${dayName(day)}.log`), 'a');
      await syncDirectory(folder);
      segment = { day, handle };
      this.#segments.set(host, segment);
      await this.#deleteOld(minute);
    }
    await segment.handle.appendFile(line);
    await segment.handle.datasync();
  }

  /** On each new day: the segments that fell out of the kept 35 days go. */
  async #deleteOld(now: number): Promise<void> {
    for (const { host, day } of this.#book.prune(now)) {
      await rm(join(this.#root, encodeURIComponent(host), `${dayName(day)}.log`), { force: true });
    }
  }

  /** One process per directory: a second one would interleave its lines with ours. */
  #lock(): void {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.#lockPath, 'wx');
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = Number.parseInt(readLockHolder(this.#lockPath), 10);
        if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
          throw new Error(
            `${this.#root} is in use by process ${holder}: give each instance its own PULSE_DATA_DIR, or share history through PULSE_REDIS_URL`,
          );
        }
        rmSync(this.#lockPath, { force: true });
      }
    }
  }
}

function parseLine(line: string): { t: number; values: number[] } | undefined {
  try {
    const row = JSON.parse(line) as unknown;
    if (!Array.isArray(row) || typeof row[0] !== 'number' || row.length < 2) return undefined;
    const values = row.slice(1).map((value) => (typeof value === 'number' ? value : Number.NaN));
    return { t: row[0], values };
  } catch {
    return undefined;
  }
}

async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function readLockHolder(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
