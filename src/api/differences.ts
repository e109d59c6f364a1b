/**
 * The differences between a body and the contract, each with its JSON path: what refuses the
 * body, what is dropped from it (the cache's log and metrics), and when asked, unknown fields
 * and missing optional ones (`pulse-widgets doctor`). The same walk as the browser's reader
 * (check-response.ts), told where it is; kept apart so the page's bundle carries none of it.
 */
import { Failure, readShape, type Shape, type Walk } from './check-response.ts';

function typeOf(value: unknown): string {
  return value === undefined
    ? 'absent'
    : value === null
      ? 'null'
      : Array.isArray(value)
        ? 'array'
        : typeof value;
}

/** What a shape expects, in words: `number`, `string or null`, `number or object`. */
export function expectedOf(shape: Shape): string {
  if (shape.anyOf) return shape.anyOf.map(expectedOf).join(' or ');
  return shape.type === undefined ? 'anything' : [shape.type].flat().join(' or ');
}

/** One way a body differs from the contract. */
export interface Difference {
  /** Where, as a JSON path from the body (`$.pages[3].stats.people`). */
  path: string;
  /** The same path with list indexes and map keys left out (`$.pages[].stats.people`): one per shape change. */
  pattern: string;
  kind: 'missing' | 'type' | 'unknown';
  /** What the contract expects there (`number`, `string or null`); absent for an unknown field. */
  expected?: string;
  /** The JSON type found (`absent` for a missing field). */
  found: string;
  /** Whether the contract needs the field where it is: missing or wrong, its body or entry is unusable. */
  essential: boolean;
  /** The value left out because of this difference (an optional field, a list or map entry). */
  dropped?: string;
  /** Whether what was dropped is a list or map entry, rather than a field. */
  entry?: boolean;
  /** The query flag that adds a missing field. */
  addedBy?: string;
}

/** What reading a body gave: the usable value, or the difference that made it unusable. */
export type Reading =
  | { ok: true; value: unknown; differences: Difference[] }
  | { ok: false; problem: Difference; differences: Difference[] };

export interface ReadOptions {
  /** Also unknown fields and missing optional fields (doctor); the cache skips them. */
  all?: boolean;
}

/**
 * A failure names its difference only when asked: most are options of a choice that another
 * option reads (`number or null`), and building their JSON paths was most of a body's reading.
 */
class DifferenceFailure extends Failure {
  #difference?: Difference;

  constructor(
    depth: number,
    private readonly describe: () => Difference,
  ) {
    super(depth);
  }

  get difference(): Difference {
    return (this.#difference ??= this.describe());
  }
}

type Segment = { name: string | number; key: boolean };

function pathText(path: readonly Segment[], pattern: boolean): string {
  let text = '$';
  for (const { name, key } of path) {
    if (typeof name === 'number') text += pattern ? '[]' : `[${name}]`;
    else if (key) text += pattern ? '.*' : `[${JSON.stringify(name)}]`;
    else text += /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
  }
  return text;
}

function placeOf(path: readonly Segment[]): { path: string; pattern: string } {
  return { path: pathText(path, false), pattern: pathText(path, true) };
}

class ReportingWalk implements Walk {
  depth = 0;
  readonly differences: Difference[] = [];
  readonly seen?: Walk['seen'];

  constructor(
    private readonly all: boolean,
    private readonly path: Segment[] = [],
  ) {
    if (all) this.seen = (object, shape) => this.#notes(object, shape);
  }

  /** Unknown properties of an object with known ones, and known optional ones it lacks. */
  #notes(object: Record<string, unknown>, shape: Shape): void {
    const properties = shape.properties ?? {};
    if (Object.keys(properties).length === 0) return;
    for (const name of Object.keys(object)) {
      if (!Object.hasOwn(properties, name))
        this.#note(name, { kind: 'unknown', found: typeOf(object[name]), essential: false });
    }
    for (const [name, property] of Object.entries(properties)) {
      if (!Object.hasOwn(object, name))
        this.#note(name, {
          kind: 'missing',
          expected: expectedOf(property),
          found: 'absent',
          essential: false,
          ...(property.addedBy ? { addedBy: property.addedBy } : {}),
        });
    }
  }

  #note(name: string, difference: Omit<Difference, 'path' | 'pattern'>): void {
    this.enter(name);
    this.differences.push({ ...placeOf(this.path), ...difference });
    this.leave();
  }

  enter(name: string | number, key = false): void {
    this.path.push({ name, key });
    this.depth++;
  }

  leave(): void {
    this.path.pop();
    this.depth--;
  }

  fail(kind: 'missing' | 'type', shape: Shape, found: unknown): Failure {
    const path = [...this.path];
    return new DifferenceFailure(this.depth, () => ({
      ...placeOf(path),
      kind,
      expected: expectedOf(shape),
      found: typeOf(found),
      essential: true,
    }));
  }

  drop(failure: Failure): void {
    const { difference } = failure as DifferenceFailure;
    const here = pathText(this.path, false);
    const last = this.path.at(-1);
    this.differences.push({
      ...difference,
      essential: difference.path !== here && difference.essential,
      dropped: here,
      entry: last !== undefined && (typeof last.name === 'number' || last.key),
    });
  }

  branch(): Walk {
    const branch = new ReportingWalk(this.all, this.path);
    branch.depth = this.depth;
    return branch;
  }

  merge(branch: Walk): void {
    this.differences.push(...(branch as ReportingWalk).differences);
  }
}

/** Reads `body` by `shape` and names every difference from it. */
export function readDifferences(shape: Shape, body: unknown, options: ReadOptions = {}): Reading {
  const walk = new ReportingWalk(options.all ?? false);
  const value = readShape(shape, body, walk);
  return value instanceof DifferenceFailure
    ? { ok: false, problem: value.difference, differences: walk.differences }
    : { ok: true, value, differences: walk.differences };
}
