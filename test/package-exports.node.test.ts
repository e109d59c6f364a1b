/**
 * The package's shape: package.json "exports" and the library build agree entry by entry, the
 * server is offered to Node only, and no browser entry point can reach server code: the import
 * graph of each one, walked from its source, holds no Node built-in, nothing under src/server
 * and no package but lit (zod too for the simulator).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build, type Rolldown } from 'vite';
import { BIN_ENTRIES, ELEMENT_ENTRIES, LIB_ENTRIES, NODE_ONLY_ENTRIES } from '../vite.lib.config.ts';

type RolldownOutput = Rolldown.RolldownOutput;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
  exports: Record<string, string | Record<string, string>>;
  types: string;
  customElements: string;
  'web-types': string;
  bin: Record<string, string>;
  files: string[];
  private?: boolean;
};
/** What the widgets may import in a browser: lit, for lit-html (they validate with generated shapes, not zod). */
const BROWSER_PACKAGES = ['lit'];
/** The simulator (for demos, stories and tests, not for widgets) parses queries with the contract's zod schemas. */
const ALSO_ALLOWED: Record<string, string[]> = { simulator: ['zod'] };

const ENTRY_NAMES = Object.keys(LIB_ENTRIES);
const browserEntries = ENTRY_NAMES.filter((name) => !NODE_ONLY_ENTRIES.includes(name));

/** Specifiers a module really imports at run time (type-only imports and exports vanish). */
function runtimeImports(source: string): string[] {
  const found: string[] = [];
  const statement = /^\s*(?:import|export)\s+(type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/gm;
  for (const match of source.matchAll(statement)) if (!match[1]) found.push(match[2]!);
  for (const match of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(match[1]!);
  return found;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Every source file and bare specifier the module at `entry` reaches. */
function importGraph(entry: string): { files: string[]; packages: Map<string, string> } {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const specifier of runtimeImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else packages.set(specifier, relative(ROOT, file));
    }
  };
  visit(resolve(ROOT, entry));
  return { files: [...files].map((file) => relative(ROOT, file)), packages };
}

/** The module of an element's class, which must not register it. */
const componentModule = (tag: string): string => `src/elements/${tag}/${tag}.component.ts`;
/**
 * A statement registering a literal tag name: `TopPages.define('top-pages')`,
 * `customElements.define('x-y', …)` (at the start of a line, so examples in comments do not count).
 */
const DEFINE_CALL = /^\s*[\w.]+\.define\(\s*['"`][a-z]+-/m;

/** The library build (vite.lib.config.ts), in memory. */
async function buildLibrary(): Promise<RolldownOutput> {
  const built = await build({
    configFile: `${ROOT}vite.lib.config.ts`,
    root: ROOT,
    logLevel: 'warn',
    build: { write: false },
  });
  return [built].flat()[0] as RolldownOutput;
}

/** The dist file and declaration file the build makes for an entry. */
function builtFiles(name: string): { js: string; types: string } {
  return {
    js: `./dist/${name}.js`,
    types: `./dist/types/${LIB_ENTRIES[name]!.replace(/^src\//, '').replace(/\.ts$/, '.d.ts')}`,
  };
}

test('every library entry has its export, with types, and every export is built', () => {
  const conditional = Object.entries(pkg.exports).filter(
    (entry): entry is [string, Record<string, string>] => typeof entry[1] === 'object',
  );
  for (const name of ENTRY_NAMES) {
    const { js, types } = builtFiles(name);
    const exported = conditional.find(([, conditions]) => Object.values(conditions).includes(js));
    assert.ok(exported, `package.json exports ${js}`);
    assert.equal(exported[1].types, types, `types of ${exported[0]}`);
  }
  const built = new Set(ENTRY_NAMES.map((name) => builtFiles(name).js));
  for (const [subpath, conditions] of conditional) {
    for (const [condition, file] of Object.entries(conditions)) {
      if (condition !== 'types')
        assert.ok(
          built.has(file),
          `${subpath} (${condition}) points at ${file}, which vite.lib.config.ts builds`,
        );
    }
  }
  assert.equal(pkg.types, builtFiles('index').types);
  assert.equal(pkg.customElements, 'custom-elements.json');
});

test('each element folder holds its class and a module that registers it, and has its export, story and test file', () => {
  assert.ok(ELEMENT_ENTRIES.length >= 4, `elements found: ${ELEMENT_ENTRIES}`);
  for (const tag of ELEMENT_ENTRIES) {
    assert.deepEqual(
      pkg.exports[`./${tag}`],
      { types: builtFiles(tag).types, default: builtFiles(tag).js },
      `package.json exports ./${tag}`,
    );
    assert.match(readFileSync(`${ROOT}${LIB_ENTRIES[tag]}`, 'utf8'), new RegExp(`\\.define\\('${tag}'\\)`));
    assert.doesNotMatch(
      readFileSync(`${ROOT}${componentModule(tag)}`, 'utf8'),
      DEFINE_CALL,
      `${componentModule(tag)} registers nothing`,
    );
    assert.ok(existsSync(`${ROOT}stories/${tag}.stories.ts`), `stories/${tag}.stories.ts exists`);
    assert.ok(existsSync(`${ROOT}test/${tag}.test.ts`), `test/${tag}.test.ts exists`);
  }
});

test('the root entry registers every element; the classes entry exports every class and reaches no registration', () => {
  const root = importGraph(LIB_ENTRIES.index!).files;
  const classes = importGraph(LIB_ENTRIES.classes!).files;
  for (const tag of ELEMENT_ENTRIES) {
    assert.ok(root.includes(LIB_ENTRIES[tag]!), `${LIB_ENTRIES.index} imports ${LIB_ENTRIES[tag]}`);
    assert.ok(
      classes.includes(componentModule(tag)),
      `${LIB_ENTRIES.classes} exports from ${componentModule(tag)}`,
    );
  }
  const registering = classes.filter((file) => DEFINE_CALL.test(readFileSync(`${ROOT}${file}`, 'utf8')));
  assert.deepEqual(registering, [], `${LIB_ENTRIES.classes} reaches modules that register an element`);
});

test('the built classes module, with every chunk it imports, registers nothing (and a built element entry does)', async () => {
  const { output } = await buildLibrary();
  const reachable = (entry: string): string => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      const chunk = output.find((item) => item.fileName === file);
      if (chunk?.type !== 'chunk' || seen.has(file)) return;
      seen.add(file);
      chunk.imports.forEach(visit);
      chunk.dynamicImports.forEach(visit);
    };
    visit(entry);
    return output
      .filter((item) => item.type === 'chunk' && seen.has(item.fileName))
      .map((item) => (item as { code: string }).code)
      .join('\n');
  };
  assert.doesNotMatch(reachable('classes.js'), DEFINE_CALL);
  assert.match(reachable('top-pages.js'), DEFINE_CALL);
});

test('publishable: not private, the bin is a compiled entry, the framework integrations are exported and packed', () => {
  assert.equal(pkg.private, undefined);
  assert.deepEqual(pkg.bin, { 'pulse-widgets': `./dist/${Object.keys(BIN_ENTRIES)[0]}.js` });
  for (const source of Object.values(BIN_ENTRIES))
    assert.match(source, /^src\/server\//, 'a bin runs server code, never a browser entry');
  // Written by custom-elements-manifest.config.mjs into dist/frameworks/ (`npm run analyze`).
  const config = readFileSync(`${ROOT}custom-elements-manifest.config.mjs`, 'utf8');
  const typeOnly = { './jsx': 'jsx.d.ts', './vue': 'vue.d.ts', './svelte': 'svelte.d.ts' };
  for (const [subpath, file] of Object.entries(typeOnly)) {
    assert.deepEqual(
      pkg.exports[subpath],
      { types: `./dist/frameworks/${file}` },
      `package.json exports ${subpath}`,
    );
    assert.ok(config.includes(`'${file}'`), `the analyzer config writes ${file}`);
  }
  for (const file of ['vscode.html-custom-data.json', 'vscode.css-custom-data.json', 'web-types.json']) {
    assert.equal(pkg.exports[`./${file}`], `./dist/frameworks/${file}`);
    assert.ok(config.includes(`'${file}'`), `the analyzer config writes ${file}`);
  }
  assert.equal(pkg['web-types'], './dist/frameworks/web-types.json');
  assert.ok(
    pkg.files.includes('dist') &&
      pkg.files.includes('custom-elements.json') &&
      pkg.files.includes('docs/usage.md'),
  );
});

test('the server is exported under the "node" condition only', () => {
  for (const name of NODE_ONLY_ENTRIES) {
    const { js, types } = builtFiles(name);
    assert.deepEqual(pkg.exports[`./${name}`], { types, node: js });
  }
});

for (const name of browserEntries) {
  test(`browser entry "${name}" (${LIB_ENTRIES[name]}) never reaches server code`, () => {
    const { files, packages } = importGraph(LIB_ENTRIES[name]!);
    const allowed = new Set([...BROWSER_PACKAGES, ...(ALSO_ALLOWED[name] ?? [])]);
    assert.deepEqual(
      files.filter((file) => /^src\/(server|runtime)\//.test(file)),
      [],
      'no module under src/server or src/runtime',
    );
    for (const [specifier, importer] of packages) {
      assert.ok(
        !specifier.startsWith('node:') && !builtinModules.includes(specifier),
        `${importer} imports the Node built-in ${specifier}`,
      );
      assert.ok(
        allowed.has(packageName(specifier)),
        `${importer} imports ${specifier}, which entry "${name}" may not ship`,
      );
    }
  });
}

test('the walk sees what it must refuse (so the tests above can fail)', () => {
  const { files, packages } = importGraph(LIB_ENTRIES.server!);
  assert.ok(files.some((file) => file.startsWith('src/server/')));
  assert.ok([...packages.keys()].some((specifier) => specifier.startsWith('node:')));
});
