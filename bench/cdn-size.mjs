/**
 * Sizes of the CDN modules (scripts/build-cdn.mjs): raw (not minified), minified, and the
 * minified file gzipped (level 9) and brotli-compressed (quality 11), as a CDN would serve it.
 * Writes its table into BENCHMARKS.md between `<!-- cdn-sizes -->` and `<!-- /cdn-sizes -->`.
 *
 *   node --import tsx bench/cdn-size.mjs
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { buildInMemory, cdnEntries } from '../scripts/build-cdn.mjs';
import { replaceSection } from './report.mjs';

const kB = (bytes) => `${(bytes / 1000).toFixed(2)} kB`;

const rows = [];
for (const target of cdnEntries()) {
  const raw = Buffer.from(await buildInMemory(target, { minify: false }));
  const min = Buffer.from(await buildInMemory(target, { minify: true }));
  const gzip = gzipSync(min, { level: 9 }).length;
  const brotli = brotliCompressSync(min, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  rows.push(
    `| \`dist/cdn/${target.name}.js\` | ${kB(raw.length)} | ${kB(min.length)} | ${kB(gzip)} | ${kB(brotli)} |`,
  );
}

const text = [
  '## CDN bundle sizes',
  '',
  `Measured by \`node --import tsx bench/cdn-size.mjs\` on ${new Date().toISOString().slice(0, 10)} (Node ${process.version}). Each file`,
  'is self-contained: lit and the poll hub are inside. 1 kB = 1000 bytes.',
  '',
  '| CDN file | raw | min | min + gzip | min + brotli |',
  '| --- | --- | --- | --- | --- |',
  ...rows,
].join('\n');
console.log(text);
await replaceSection('cdn-sizes', text);
