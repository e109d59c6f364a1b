/**
 * `npm run new:element` (scripts/new-element.mjs), run on a scratch copy of the tree: it writes
 * every part an element has, the tree type-checks with the new element, and a name it cannot use
 * or an element that exists already changes nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What `tsc -p tsconfig.json` reads (the browser code, its tests and stories) and what the template edits. */
const COPIED = [
  'src',
  'test',
  'stories',
  '.storybook',
  'tsconfig.json',
  'package.json',
  'custom-elements.json',
  'docs/usage.md',
];
const LOCALES = ['de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'ja', 'ar'];

let scratch: string;

before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'pulse-new-element-'));
  mkdirSync(join(scratch, 'docs'));
  for (const path of COPIED) cpSync(join(ROOT, path), join(scratch, path), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'));
});

after(() => rmSync(scratch, { recursive: true, force: true }));

/** As `npm run new:element -- <tag>` runs it: at the root of the tree it writes to. */
function newElement(tag: string) {
  return spawnSync(process.execPath, [join(ROOT, 'scripts/new-element.mjs'), tag], {
    cwd: scratch,
    encoding: 'utf8',
  });
}

const read = (path: string) => readFileSync(join(scratch, path), 'utf8');

/** Every file the template may touch, as it is now. */
function snapshot(): Map<string, string> {
  const paths = [
    'src/locales/en.ts',
    ...LOCALES.map((code) => `src/locales/${code}.ts`),
    'package.json',
    'src/index.ts',
    'src/classes.ts',
    'docs/usage.md',
  ];
  return new Map(paths.map((path) => [path, read(path)]));
}

test('a name that is not a custom element name is refused, and nothing is written', () => {
  const unchanged = snapshot();
  for (const name of ['gauge', 'Visitor-Gauge', 'visitor_gauge', '-gauge', 'visitor-']) {
    const run = newElement(name);
    assert.equal(run.status, 1, `${name}: ${run.stdout}`);
    assert.match(run.stderr, /is not an element name/);
  }
  assert.deepEqual(snapshot(), unchanged);
});

test('an element that exists already is refused, and nothing is written', () => {
  const unchanged = snapshot();
  const run = newElement('platform-split');
  assert.equal(run.status, 1);
  assert.match(run.stderr, /src\/elements\/platform-split exists already/);
  assert.deepEqual(snapshot(), unchanged);
});

test('a new element: its folder, terms in every language, story, test, exports and reference block; the tree type-checks', () => {
  const run = newElement('visitor-gauge');
  assert.equal(run.status, 0, run.stderr);
  const written = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('wrote '))
    .map((line) => line.slice('wrote '.length));
  assert.deepEqual(
    written.sort(),
    [
      'docs/usage.md',
      'package.json',
      'src/classes.ts',
      'src/elements/visitor-gauge/visitor-gauge.component.ts',
      'src/elements/visitor-gauge/visitor-gauge.styles.ts',
      'src/elements/visitor-gauge/visitor-gauge.ts',
      'src/index.ts',
      ...['en', ...LOCALES].map((code) => `src/locales/${code}.ts`),
      'stories/visitor-gauge.stories.ts',
      'test/visitor-gauge.test.ts',
    ].sort(),
  );

  // The class registers nothing; its module does (test/package-exports.node.test.ts's rule).
  assert.match(
    read('src/elements/visitor-gauge/visitor-gauge.component.ts'),
    /export class VisitorGauge extends PulseElement<QuickstatsResponse>/,
  );
  assert.doesNotMatch(read('src/elements/visitor-gauge/visitor-gauge.component.ts'), /\.define\(/);
  assert.match(
    read('src/elements/visitor-gauge/visitor-gauge.ts'),
    /VisitorGauge\.define\('visitor-gauge'\)/,
  );
  assert.match(read('src/locales/en.ts'), /export const visitorGaugeTerms = \{/);
  for (const code of LOCALES) {
    const locale = read(`src/locales/${code}.ts`);
    assert.match(
      locale,
      /visitorGaugeLabel: '[^']+',\n {2}visitorGaugeEmpty: '[^']+',\n {2}visitorGaugeAnnouncement: \(count\) => `[^`]+`,\n\};\n\nregisterTranslation/,
      code,
    );
    // Translated, not English copies.
    assert.doesNotMatch(locale, /People on the site now|Nobody on the site right now/, code);
  }
  const pkg = JSON.parse(read('package.json')) as { exports: Record<string, unknown> };
  assert.deepEqual(pkg.exports['./visitor-gauge'], {
    types: './dist/types/elements/visitor-gauge/visitor-gauge.d.ts',
    default: './dist/visitor-gauge.js',
  });
  const subpaths = Object.keys(pkg.exports);
  assert.ok(
    subpaths.indexOf('./traffic-sources') < subpaths.indexOf('./visitor-gauge') &&
      subpaths.indexOf('./visitor-gauge') < subpaths.indexOf('./locales/ar'),
    'among the elements, in name order',
  );
  assert.match(
    read('src/index.ts'),
    /import '\.\/elements\/traffic-chart\/traffic-chart\.ts';\nimport '\.\/elements\/visitor-gauge\/visitor-gauge\.ts';/,
  );
  assert.match(
    read('src/classes.ts'),
    /export \{ VisitorGauge \} from '\.\/elements\/visitor-gauge\/visitor-gauge\.component\.ts';\nexport \{ PulseElement/,
  );
  assert.match(
    read('docs/usage.md'),
    /### `<visitor-gauge>`\n\n.+\n\n<!-- cem:visitor-gauge -->\n<!-- \/cem:visitor-gauge -->\n?$/,
  );

  const typecheck = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', 'tsconfig.json'],
    { cwd: scratch, encoding: 'utf8' },
  );
  assert.equal(typecheck.status, 0, typecheck.stdout + typecheck.stderr);
});
