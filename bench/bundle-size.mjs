/**
 * Bundle size, minified + gzipped (level 9), of what a page loads, built exactly like the CDN
 * files (scripts/build-cdn.mjs): the four card elements with lit-html, the same with the newsroom
 * features, <live-counter> alone, every element. Then where the bytes go: lit-html alone, the contract's browser part, and our own code
 * with lit (and the contract) left out.
 * Writes its table into BENCHMARKS.md between `<!-- bundle-size -->` and `<!-- /bundle-size -->`.
 *
 *   node bench/bundle-size.mjs
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { register } from 'tsx/esm/api';
import { build } from 'vite';
import { replaceSection } from './report.mjs';

// scripts/build-cdn.mjs reads the element list from vite.lib.config.ts.
register();
const { cdnConfig } = await import('../scripts/build-cdn.mjs');

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROBES = `${ROOT}.tmp/bundle-probes`;
const CARDS = ['live-counter', 'top-pages', 'geo-list', 'referrer-bars'];
const LIT = [/^lit(\/.*)?$/, /^@lit\//];
const API = /(^|\/)api\/[\w-]+\.ts$/;

/** Entries made for the measurement (the CDN has no "four cards" file). */
const PROBE_SOURCES = {
  'four-cards': `${CARDS.map((name) => `export * from '${ROOT}src/elements/${name}/${name}.ts';`).join('\n')}
export { configure } from '${ROOT}src/client/index.ts';`,
  'four-cards-newsroom': `import '${ROOT}src/newsroom.ts';
${CARDS.map((name) => `export * from '${ROOT}src/elements/${name}/${name}.ts';`).join('\n')}
export { configure } from '${ROOT}src/client/index.ts';`,
  lit: `export { html, svg, nothing, noChange, render } from 'lit/html.js';
export { Directive, directive } from 'lit/directive.js';`,
  api: `export { checkResponse, registerShape } from '${ROOT}src/api/check-response.ts';
export { QUICKSTATS_SHAPE, REFERRERS_SHAPE, TOP_GEO_SHAPE, TOPPAGES_SHAPE } from '${ROOT}src/api/response-shapes.ts';
export { findRoute } from '${ROOT}src/api/paths.ts';`,
};

await mkdir(PROBES, { recursive: true });
const probe = async (name) => {
  const entry = `${PROBES}/${name}.ts`;
  await writeFile(entry, `${PROBE_SOURCES[name]}\n`);
  return entry;
};

/** Minified code of one entry, built like a CDN file, with `external` modules left out. */
async function minified(name, entry, external = []) {
  const config = cdnConfig({ name, entry }, { write: false });
  config.build.rolldownOptions.external = (id) => external.some((pattern) => pattern.test(id));
  const [output] = [await build(config)].flat();
  return output.output.find((chunk) => chunk.type === 'chunk' && chunk.isEntry).code;
}

const gzipped = (code) => gzipSync(Buffer.from(code), { level: 9 }).length;
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

const bundles = [
  {
    label: 'The four card elements with lit-html and the hub',
    name: 'four-cards',
    entry: await probe('four-cards'),
    budget: 20_000,
  },
  {
    label: 'The four cards with the newsroom features (`pulse-widgets/newsroom` imported first)',
    name: 'four-cards-newsroom',
    entry: await probe('four-cards-newsroom'),
  },
  {
    label: '`<live-counter>` alone, with the hub, no lit (`dist/cdn/live-counter.js`)',
    name: 'live-counter',
    entry: `${ROOT}src/elements/live-counter/live-counter.ts`,
    budget: 12_000,
  },
  {
    label: 'Every element (`src/index.ts`, `dist/cdn/pulse-widgets.js`)',
    name: 'pulse-widgets',
    entry: `${ROOT}src/index.ts`,
  },
];
const rows = ['| Bundle | min | min+gz | Budget (gz) | |', '|---|---|---|---|---|'];
for (const { label, name, entry, budget } of bundles) {
  const code = await minified(name, entry);
  const gz = gzipped(code);
  const verdict =
    budget === undefined ? '' : gz <= budget ? 'met' : `missed (${(gz / budget).toFixed(2)}× budget)`;
  rows.push(
    `| ${label} | ${kB(code.length)} | ${kB(gz)} | ${budget === undefined ? '' : kB(budget)} | ${verdict} |`,
  );
}

const ingredients = [
  {
    label: 'lit-html, the parts the cards use (html, svg, render, directives; no element is a LitElement)',
    name: 'lit',
    entry: await probe('lit'),
  },
  {
    label: "Contract, browser part (`checkResponse` with the four cards' response shapes, `findRoute`)",
    name: 'api',
    entry: await probe('api'),
  },
  {
    label: 'Our code for the four cards (hub, base element, elements, styles), lit and contract left out',
    name: 'four-cards',
    entry: await probe('four-cards'),
    external: [...LIT, API],
  },
  {
    label: 'Our code for `<live-counter>` alone, lit and contract left out',
    name: 'live-counter',
    entry: `${ROOT}src/elements/live-counter/live-counter.ts`,
    external: [...LIT, API],
  },
];
const parts = ['| Ingredient, bundled alone | min | min+gz |', '|---|---|---|'];
for (const { label, name, entry, external } of ingredients) {
  const code = await minified(name, entry, external);
  parts.push(`| ${label} | ${kB(code.length)} | ${kB(gzipped(code))} |`);
}

/**
 * Where `<live-counter>`'s bytes go: the same build split into one chunk per part, each minified
 * and gzipped alone (separate gzip contexts and the chunks' import/export glue make the parts add
 * up to more than the one file).
 */
const COUNTER_PARTS = [
  {
    name: 'lit',
    label: 'lit (lit-html, reactive-element, css-tag, lit-element): none since the counter has its own base',
    test: /node_modules[\\/](lit|@lit|lit-html|lit-element)[\\/]/,
  },
  {
    name: 'validation',
    label: "Validation: the contract's browser part (`checkResponse`, the quickstats shape, `findRoute`)",
    test: /src[\\/]api[\\/]/,
  },
  {
    name: 'hub',
    label: 'The hub (`src/client`: clock, dedup, backoff, 304, structural sharing, pause, lazy polling)',
    test: /src[\\/]client[\\/]/,
  },
  {
    name: 'languages',
    label:
      'Languages (`localize.ts`, `translations.ts`, number formats, the English of the card and the counter)',
    test: /src[\\/](internal[\\/](localize|translations|format|memo)|locales[\\/])/,
  },
  {
    name: 'frame',
    label:
      'The frame and the lean base (`frame.ts`, `lean-element.ts`: states, events, views, updated line, live region, features, tokens)',
    test: /src[\\/]internal[\\/]/,
  },
];
const counterConfig = cdnConfig(
  { name: 'live-counter', entry: `${ROOT}src/elements/live-counter/live-counter.ts` },
  { write: false },
);
counterConfig.build.rolldownOptions.output = {
  format: 'es',
  entryFileNames: '[name].js',
  chunkFileNames: '[name].js',
  codeSplitting: { groups: COUNTER_PARTS.map(({ name, test }) => ({ name, test })) },
};
const counterChunks = [await build(counterConfig)].flat()[0].output.filter((chunk) => chunk.type === 'chunk');
const counterRows = ['| `<live-counter>`, part by part | min | min+gz |', '|---|---|---|'];
for (const { name, label } of [
  ...COUNTER_PARTS,
  { name: 'live-counter', label: 'The counter itself (`live-counter.component.ts`, its styles)' },
]) {
  // A part the counter does not bundle at all (lit) makes no chunk.
  const code = counterChunks.find((one) => one.fileName === `${name}.js`)?.code ?? '';
  counterRows.push(`| ${label} | ${kB(code.length)} | ${code ? kB(gzipped(code)) : kB(0)} |`);
}

const text = [
  `Measured by \`npm run bench:bundle\` on ${new Date().toISOString().slice(0, 10)} (Node ${process.version}, Vite/Rolldown, minified, gzip -9). 1 kB = 1000 bytes.`,
  '',
  ...rows,
  '',
  ...parts,
  '',
  ...counterRows,
].join('\n');
console.log(text);
await replaceSection('bundle-size', text);
