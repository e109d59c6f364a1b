/**
 * The WordPress plugin zip, dist/wordpress/pulse-widgets.zip: integrations/wordpress/ with the
 * package's version stamped in, and the CDN modules (dist/cdn/, built before this) in its assets/.
 * Source maps stay out: WordPress serves the plugin folder as it is.
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

const { values } = parseArgs({ options: { cdn: { type: 'string', default: join(ROOT, 'dist/cdn') }, out: { type: 'string', default: join(ROOT, 'dist/wordpress/pulse-widgets.zip') } } });
const cdn = resolve(values.cdn);
const out = resolve(values.out);
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const files = [
  ...filesUnder(PLUGIN).map((file) => {
    const data = readFileSync(file);
    const path = relative(PLUGIN, file);
    return { path, data: path === 'pulse-widgets.php' ? Buffer.from(data.toString('utf8').replaceAll('__VERSION__', version)) : data };
  }),
  ...filesUnder(cdn).filter((file) => file.endsWith('.js')).map((file) => ({ path: `assets/${relative(cdn, file)}`, data: readFileSync(file) })),
];
if (!files.some((file) => file.path === 'assets/pulse-widgets.js')) throw new Error(`no CDN modules in ${cdn}: run npm run build:cdn first`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, zip(files.map((file) => ({ ...file, path: `pulse-widgets/${file.path.split('\\').join('/')}` }))));
console.log(`WordPress plugin written to ${relative(ROOT, out)} (${files.length} files)`);
