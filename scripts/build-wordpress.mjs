/**
 * The WordPress plugin zip, dist/wordpress/pulse-widgets.zip: integrations/wordpress/ with the
 * package's version stamped in, its translations (languages/<code>.json) compiled to the gettext
 * files WordPress reads (languages/pulse-widgets-<code>.mo), and the CDN modules and
 * pulse-widgets.css (dist/cdn/, built before this) in its assets/. Source maps stay out: WordPress serves the plugin folder as it is.
 *
 *   node scripts/build-wordpress.mjs [--cdn <folder>] [--out <zip>]   (npm run build:wordpress)
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { zip } from './zip.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PLUGIN = join(ROOT, 'integrations/wordpress');

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** A gettext .mo file (little-endian, no hash table) of `translations` (English → language) for `language`. */
export function moFile(translations, language) {
  const entries = [
    ['', `Content-Type: text/plain; charset=UTF-8\nLanguage: ${language}\n`],
    ...Object.entries(translations),
  ]
    .map(([id, text]) => [Buffer.from(id), Buffer.from(text)])
    .sort(([a], [b]) => Buffer.compare(a, b));
  const count = entries.length;
  const header = Buffer.alloc(28 + count * 16);
  header.writeUInt32LE(0x950412de, 0);
  header.writeUInt32LE(count, 8);
  header.writeUInt32LE(28, 12);
  header.writeUInt32LE(28 + count * 8, 16);
  header.writeUInt32LE(28 + count * 16, 24);
  const strings = [];
  let offset = header.length;
  for (const [column, table] of [
    [0, 28],
    [1, 28 + count * 8],
  ]) {
    entries.forEach((entry, index) => {
      header.writeUInt32LE(entry[column].length, table + index * 8);
      header.writeUInt32LE(offset, table + index * 8 + 4);
      strings.push(entry[column], Buffer.alloc(1));
      offset += entry[column].length + 1;
    });
  }
  return Buffer.concat([header, ...strings]);
}

const { values } = parseArgs({
  options: {
    cdn: { type: 'string', default: join(ROOT, 'dist/cdn') },
    out: { type: 'string', default: join(ROOT, 'dist/wordpress/pulse-widgets.zip') },
  },
});
const cdn = resolve(values.cdn);
const out = resolve(values.out);
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const pluginFile = (file) => {
  const data = readFileSync(file);
  const path = relative(PLUGIN, file);
  if (path === 'pulse-widgets.php')
    return { path, data: Buffer.from(data.toString('utf8').replaceAll('__VERSION__', version)) };
  const translation = /^languages\/([a-z]{2,3})\.json$/.exec(path);
  if (translation)
    return {
      path: `languages/pulse-widgets-${translation[1]}.mo`,
      data: moFile(JSON.parse(data.toString('utf8')), translation[1]),
    };
  return { path, data };
};
const files = [
  ...filesUnder(PLUGIN).map(pluginFile),
  ...filesUnder(cdn)
    .filter((file) => /\.(js|css)$/.test(file))
    .map((file) => ({ path: `assets/${relative(cdn, file)}`, data: readFileSync(file) })),
];
if (
  !['assets/pulse-widgets.js', 'assets/pulse-widgets.css'].every((path) =>
    files.some((file) => file.path === path),
  )
)
  throw new Error(`no CDN modules in ${cdn}: run npm run build:cdn first`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  zip(files.map((file) => ({ ...file, path: `pulse-widgets/${file.path.split('\\').join('/')}` }))),
);
console.log(`WordPress plugin written to ${relative(ROOT, out)} (${files.length} files)`);
