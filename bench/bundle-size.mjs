/**
 * Bundle size, minified + gzipped (level 9), of what a page loads: every element with lit, and
 * <live-counter> alone, built exactly like the CDN files (scripts/build-cdn.mjs). Then where the
 * bytes go: lit alone, zod/mini with the contract's route table, and our own code.
 * Writes its table into BENCHMARKS.md between `<!-- bundle-size -->` and `<!-- /bundle-size -->`.
 *
 *   node bench/bundle-size.mjs
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildInMemory } from '../scripts/build-cdn.mjs';
import { replaceSection } from './report.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROBES = `${ROOT}.tmp/bundle-probes`;

/** Entries that contain one ingredient only, to see what each costs. */
const INGREDIENTS = {
  'lit (LitElement, html, css, decorators, async directive, styleMap)': `export { LitElement, html, css, nothing } from 'lit';
export { property } from 'lit/decorators.js';
export { AsyncDirective } from 'lit/async-directive.js';
export { styleMap } from 'lit/directives/style-map.js';`,
  'zod/mini + route table (`routes`, `findRoute` from src/api)': `export { routes, findRoute } from '${ROOT}src/api/routes.ts';`,
  'zod/mini + the 4 response schemas only': `export { quickstatsResponseSchema, toppagesResponseSchema, referrersResponseSchema, topGeoResponseSchema } from '${ROOT}src/api/responses.ts';`,
};

const gzipped = (code) => gzipSync(Buffer.from(code), { level: 9 }).length;
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

const bundles = [
  { label: 'All four elements with lit, hub and zod (`src/index.ts`)', name: 'pulse-widgets', entry: `${ROOT}src/index.ts`, budget: 20_000 },
  { label: '`<live-counter>` alone, with lit, hub and zod', name: 'live-counter', entry: `${ROOT}src/elements/live-counter/live-counter.ts`, budget: 12_000 },
];
const rows = ['| Bundle | min | min+gz | Budget (gz) | |', '|---|---|---|---|---|'];
for (const { label, name, entry, budget } of bundles) {
  const code = await buildInMemory({ name, entry }, { minify: true });
  const gz = gzipped(code);
  rows.push(`| ${label} | ${kB(code.length)} | ${kB(gz)} | ${kB(budget)} | ${gz <= budget ? 'met' : `missed (${(gz / budget).toFixed(2)}× budget)`} |`);
}

await mkdir(PROBES, { recursive: true });
const parts = ['| Ingredient, bundled alone | min | min+gz |', '|---|---|---|'];
for (const [label, source] of Object.entries(INGREDIENTS)) {
  const entry = `${PROBES}/${label.replace(/\W+/g, '-')}.ts`;
  await writeFile(entry, `${source}\n`);
  const code = await buildInMemory({ name: 'probe', entry }, { minify: true });
  parts.push(`| ${label} | ${kB(code.length)} | ${kB(gzipped(code))} |`);
}

const text = [
  `Measured by \`npm run bench:bundle\` on ${new Date().toISOString().slice(0, 10)} (Node ${process.version}, Vite/Rolldown, minified, gzip -9). 1 kB = 1000 bytes.`,
  '',
  ...rows,
  '',
  ...parts,
].join('\n');
console.log(text);
await replaceSection('bundle-size', text);
