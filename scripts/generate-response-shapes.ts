/**
 * Writes src/api/response-shapes.ts: the contract's response schemas as JSON Schema, so the
 * browser validates bodies without zod. Run `npm run generate:shapes` after changing
 * src/api/responses.ts; a test fails while the generated file is out of date.
 */
import { writeFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { historyResponseSchema } from '../src/api/history.ts';
import { ROUTE_NAMES, routes, type RouteName } from '../src/api/routes.ts';

type Json = Record<string, unknown>;

/** The JSON Schema words check-response.ts understands; any other word would be ignored there. */
const UNDERSTOOD = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'drop',
  'addedBy',
]);

/**
 * Drops what can never fail on parsed JSON, to keep the browser bundle small: object keys are
 * always strings (`propertyNames: {type: string}`), and `additionalProperties: {}` allows anything,
 * as its absence does.
 */
function withoutNoOps(shape: unknown): unknown {
  if (Array.isArray(shape)) return shape.map(withoutNoOps);
  if (typeof shape !== 'object' || shape === null) return shape;
  const kept: Json = {};
  for (const [word, value] of Object.entries(shape)) {
    const isEmpty = typeof value === 'object' && value !== null && Object.keys(value).length === 0;
    if (word === 'additionalProperties' && (value === true || isEmpty)) continue;
    if (word === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}') continue;
    kept[word] = withoutNoOps(value);
  }
  return kept;
}

/** Replaces each `$ref` by the definition it names, so the walker needs no `$defs`. */
function inlined(shape: unknown, defs: Json, seen: readonly string[] = []): unknown {
  if (Array.isArray(shape)) return shape.map((item) => inlined(item, defs, seen));
  if (typeof shape !== 'object' || shape === null) return shape;
  const { $ref, $defs: _defs, ...words } = shape as Json;
  if (typeof $ref === 'string') {
    const name = $ref.slice('#/$defs/'.length);
    if (seen.includes(name)) throw new Error(`${$ref}: a recursive schema cannot be written out in full`);
    // Words beside the reference (`drop`, `addedBy`) say how this use of the definition is read.
    return {
      ...(inlined(defs[name], defs, [...seen, name]) as Json),
      ...(inlined(words, defs, seen) as Json),
    };
  }
  return Object.fromEntries(
    Object.entries(words).map(([word, value]) => [
      word,
      word === 'required'
        ? value
        : word === 'properties'
          ? Object.fromEntries(
              Object.entries(value as Json).map(([name, child]) => [name, inlined(child, defs, seen)]),
            )
          : inlined(value, defs, seen),
    ]),
  );
}

/** The JSON types check-response.ts tells apart (no `integer`: our schemas use plain numbers). */
const TYPES = new Set(['object', 'array', 'string', 'number', 'boolean', 'null']);

function assertUnderstood(shape: Json, where: string): void {
  for (const [word, value] of Object.entries(shape)) {
    if (!UNDERSTOOD.has(word))
      throw new Error(`${where}.${word}: check-response.ts does not understand this JSON Schema word`);
    if (word === 'type' && ![value].flat().every((type) => TYPES.has(type as string)))
      throw new Error(`${where}.type: ${String(value)} is not a type check-response.ts tells apart`);
    const inner =
      word === 'properties'
        ? Object.entries(value as object)
        : word === 'anyOf'
          ? (value as object[]).map((option, i) => [String(i), option] as const)
          : ['items', 'additionalProperties'].includes(word) && typeof value === 'object'
            ? [['', value] as const]
            : [];
    for (const [name, child] of inner)
      assertUnderstood(child as Json, `${where}.${word}${name ? `.${name}` : ''}`);
  }
}

/**
 * The schema as the body it reads (`io: 'input'`: a list before its dropped entries are filtered
 * out), with `drop` on each value dropped when unusable (a `z.catch`) and `addedBy` from the
 * metadata of a field a query flag adds.
 */
/**
 * Every optional property is read when present and dropped when unusable (`optional()` in
 * responses.ts), so its `drop` goes without saying: it is left out, and check-response.ts drops
 * any property not `required`. Only list items and map values keep the word. A smaller shape
 * for every element bundle; an optional property without `drop` would be a contract no reader
 * follows, so it stops the build.
 */
function withImplicitDrops(shape: unknown, where: string): unknown {
  if (Array.isArray(shape)) return shape.map((item, index) => withImplicitDrops(item, `${where}[${index}]`));
  if (typeof shape !== 'object' || shape === null) return shape;
  const {
    properties,
    required = [],
    ...words
  } = shape as Json & { properties?: Record<string, Json>; required?: string[] };
  const kept: Json = Object.fromEntries(
    Object.entries(words).map(([word, value]) => [word, withImplicitDrops(value, `${where}.${word}`)]),
  );
  if (properties) {
    kept.properties = Object.fromEntries(
      Object.entries(properties).map(([name, child]) => {
        if (required.includes(name)) return [name, withImplicitDrops(child, `${where}.${name}`)];
        if (child.drop !== true)
          throw new Error(
            `${where}.${name}: an optional property must be read with optional() (dropped when unusable)`,
          );
        const { drop: _drop, ...rest } = child;
        return [name, withImplicitDrops(rest, `${where}.${name}`)];
      }),
    );
  }
  if ((shape as Json).required) kept.required = required;
  return kept;
}

function shapeOf(schema: z.ZodMiniType, name: string): Json {
  const { $schema: _dialect, ...exported } = z.toJSONSchema(schema, {
    io: 'input',
    reused: 'ref',
    target: 'draft-2020-12',
    override: ({ zodSchema, jsonSchema }) => {
      if ((zodSchema as unknown as z.ZodMiniType)._zod.def.type === 'catch') jsonSchema.drop = true;
    },
  });
  const kept = withoutNoOps(exported) as Json;
  const shape = withImplicitDrops(inlined(kept, (kept.$defs ?? {}) as Json), name) as Json;
  assertUnderstood(shape, name);
  return shape;
}

/** The shapes directly inside a shape. */
function children(shape: Json): Json[] {
  const { properties, items, additionalProperties, anyOf } = shape as {
    properties?: Record<string, Json>;
    items?: Json;
    additionalProperties?: Json | boolean;
    anyOf?: Json[];
  };
  return [
    ...Object.values(properties ?? {}),
    ...(items ? [items] : []),
    ...(typeof additionalProperties === 'object' ? [additionalProperties] : []),
    ...(anyOf ?? []),
  ];
}

/**
 * A constant's name: by its type when that says it all (`numberShape`, `stringOrNullShape`,
 * `numberListShape`, `numberMapShape`), else by the property it is first found under;
 * `droppable…` when an unusable value is dropped.
 */
function constantName(shape: Json, property: string): string {
  if (shape.drop === true) {
    const { drop: _drop, ...kept } = shape;
    return `droppable${constantName(kept, property).replace(/^\w/, (letter) => letter.toUpperCase())}`;
  }
  const bareType = (inner: unknown) => {
    const words = typeof inner === 'object' && inner !== null ? Object.keys(inner) : [];
    return words.length === 1 && words[0] === 'type' ? [(inner as Json).type].flat().join('_or_') : undefined;
  };
  const { items, additionalProperties } = shape;
  const words = Object.keys(shape).join();
  const base =
    bareType(shape) ??
    (words === 'type,items' && bareType(items) ? `${bareType(items)}_list` : undefined) ??
    (words === 'type,additionalProperties' && bareType(additionalProperties)
      ? `${bareType(additionalProperties)}_map`
      : undefined) ??
    property;
  return `${base.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase())}Shape`;
}

/**
 * The shapes as TypeScript: a shape that occurs more than once (the page stats of toppages and
 * quickstats, a histogram, `{type: number}`) becomes one constant, so a bundle holds it once and
 * refers to it by a one-letter name, and keeps only the routes it imports.
 */
function shapesModule(shapes: readonly (readonly [string, Json])[]): string {
  const uses = new Map<string, number>();
  const count = (shape: Json): void => {
    const key = JSON.stringify(shape);
    uses.set(key, (uses.get(key) ?? 0) + 1);
    children(shape).forEach(count);
  };
  for (const [, shape] of shapes) count(shape);

  const constants = new Map<string, string>();
  const declarations: string[] = [];
  const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
  const write = (shape: Json, property: string): string => {
    const words = Object.entries(shape).map(([word, value]) => {
      const text =
        word === 'properties'
          ? `{ ${Object.entries(value as Record<string, Json>)
              .map(([name, child]) => `${key(name)}: ${write(child, name)}`)
              .join(', ')} }`
          : word === 'anyOf'
            ? `[${(value as Json[]).map((option) => write(option, property)).join(', ')}]`
            : word === 'items' && typeof value === 'object'
              ? write(value as Json, `${property}_item`)
              : word === 'additionalProperties' && typeof value === 'object'
                ? write(value as Json, property)
                : JSON.stringify(value);
      return `${word}: ${text}`;
    });
    const text = `{ ${words.join(', ')} }`;
    const json = JSON.stringify(shape);
    if ((uses.get(json) ?? 0) < 2) return text;
    if (!constants.has(json)) {
      const name = uniqueName(constantName(shape, property), new Set(constants.values()));
      constants.set(json, name);
      declarations.push(`const ${name}: Shape = ${text};`);
    }
    return constants.get(json)!;
  };
  const exported = shapes.map(([name, shape]) => `export const ${name}: Shape = ${write(shape, name)};`);
  return [...declarations, '', ...exported].join('\n');
}

function uniqueName(wanted: string, taken: ReadonlySet<string>): string {
  let name = wanted;
  for (let n = 2; taken.has(name); n++) name = `${wanted}${n}`;
  return name;
}

const exportName = (route: RouteName) => `${route.toUpperCase()}_SHAPE`;

export function responseShapesSource(): string {
  const shapes = [
    ...ROUTE_NAMES.map((route) => [exportName(route), shapeOf(routes[route].response, route)] as const),
    ['HISTORY_SHAPE', shapeOf(historyResponseSchema, 'history')] as const,
  ];
  return `/**
 * GENERATED by scripts/generate-response-shapes.ts from src/api/responses.ts and history.ts: do not edit.
 * The response schemas as JSON Schema, for the zod-free browser validator (check-response.ts):
 * one constant per route (and \`HISTORY_SHAPE\` for our own \`/history/v1/\`), so each element
 * bundles the shape of its own route only.
 */
import type { Shape } from './check-response.ts';
import type { RouteName } from './paths.ts';

${shapesModule(shapes)}

/** Every route's shape, for code that checks any route (tests, benchmarks). */
export const RESPONSE_SHAPES: Readonly<Record<RouteName, Shape>> = { ${ROUTE_NAMES.map((route) => `${route}: ${exportName(route)}`).join(', ')} };
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(new URL('../src/api/response-shapes.ts', import.meta.url), responseShapesSource());
  console.log('wrote src/api/response-shapes.ts');
}
