/**
 * custom-elements.json is committed (package.json "customElements", Storybook's controls and
 * docs/usage.md read it), so these tests keep it honest: it is exactly what the analyzer makes
 * from today's source, it documents every element completely, and the generated reference in
 * docs/usage.md matches it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ELEMENT_ENTRIES } from '../vite.lib.config.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Documented {
  name: string;
  description?: string;
}
interface Declaration {
  name: string;
  tagName?: string;
  summary?: string;
  attributes?: Documented[];
  events?: Documented[];
  cssParts?: Documented[];
  cssProperties?: Documented[];
  cssStates?: Documented[];
}

interface Module {
  path: string;
  declarations?: Declaration[];
  exports?: { kind: string; name: string; declaration: { name: string; module?: string } }[];
}

async function committedManifest(): Promise<{ modules: Module[] }> {
  return JSON.parse(await readFile(`${ROOT}custom-elements.json`, 'utf8'));
}

test('custom-elements.json is what the analyzer makes from the source now (`npm run analyze`)', async () => {
  // The analyzer resolves --outdir against the working directory, so it must be relative.
  await mkdir(`${ROOT}.tmp`, { recursive: true });
  const outdir = relative(ROOT, await mkdtemp(`${ROOT}.tmp/cem-`));
  try {
    const run = spawnSync(`${ROOT}node_modules/.bin/cem`, ['analyze', '--outdir', outdir], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    const fresh = JSON.parse(await readFile(join(ROOT, outdir, 'custom-elements.json'), 'utf8'));
    assert.deepEqual(
      await committedManifest(),
      fresh,
      'custom-elements.json is out of date: run `npm run analyze`',
    );
  } finally {
    await rm(join(ROOT, outdir), { recursive: true, force: true });
  }
});

test('every element is documented: summary, and a description for each attribute, event, part, custom property and state', async () => {
  const manifest = await committedManifest();
  const elements = manifest.modules
    .flatMap((module) => module.declarations ?? [])
    .filter((declaration) => declaration.tagName);
  assert.deepEqual(
    elements.map((element) => element.tagName).sort(),
    [...ELEMENT_ENTRIES],
    'one element per folder of src/elements',
  );
  for (const element of elements) {
    assert.ok(element.summary, `<${element.tagName}> has a @summary`);
    const lists = {
      attributes: element.attributes,
      events: element.events,
      cssParts: element.cssParts,
      cssProperties: element.cssProperties,
      cssStates: element.cssStates,
    };
    for (const [list, items] of Object.entries(lists)) {
      assert.ok(items && items.length > 0, `<${element.tagName}> has ${list}`);
      for (const item of items)
        assert.ok(item.description?.trim(), `<${element.tagName}> ${list} ${item.name} is described`);
    }
    assert.deepEqual(element.cssStates!.map((state) => state.name).sort(), [
      'empty',
      'error',
      'loading',
      'partial',
      'paused',
      'ready',
      'stale',
    ]);
    assert.deepEqual(element.events!.map((event) => event.name).sort(), ['pulse-data', 'pulse-error']);
  }
});

test('each tag is defined by the module that registers it, pointing at the class in <tag>.component.ts', async () => {
  const { modules } = await committedManifest();
  const definitions = modules.flatMap((module) =>
    (module.exports ?? [])
      .filter((entry) => entry.kind === 'custom-element-definition')
      .map((entry) => ({ from: module.path, ...entry })),
  );
  assert.deepEqual(
    definitions.map((definition) => definition.name).sort(),
    [...ELEMENT_ENTRIES],
    'one definition per element, and no other',
  );
  for (const { from, name, declaration } of definitions) {
    assert.equal(from, `src/elements/${name}/${name}.ts`);
    const declared = modules
      .find((module) => module.path === declaration.module)
      ?.declarations?.find((one) => one.name === declaration.name);
    assert.equal(declaration.module, `src/elements/${name}/${name}.component.ts`);
    assert.equal(
      declared?.tagName,
      name,
      `${declaration.name} in ${declaration.module} has the tag <${name}>`,
    );
  }
});

test('the reference in docs/usage.md matches custom-elements.json (`npm run docs`)', () => {
  const check = spawnSync(process.execPath, ['scripts/docs-from-cem.mjs', '--check'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(check.status, 0, check.stderr);
});
