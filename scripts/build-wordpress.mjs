/**
 * The WordPress plugin zip, dist/wordpress/pulse-widgets.zip: integrations/wordpress/ with the
 * package's version stamped in, and the CDN modules (dist/cdn/, built before this) in its assets/.
 * Source maps stay out: WordPress serves the plugin folder as it is.
 *
 *   node scripts/build-wordpress.mjs      (npm run build:wordpress, part of npm run build)
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zip } from './zip.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PLUGIN = join(ROOT, 'integrations/wordpress');
const CDN = join(ROOT, 'dist/cdn');
export const PLUGIN_ZIP = join(ROOT, 'dist/wordpress/pulse-widgets.zip');

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const files = [
  ...filesUnder(PLUGIN).map((file) => {
    const data = readFileSync(file);
    const path = relative(PLUGIN, file);
    return { path, data: path === 'pulse-widgets.php' ? Buffer.from(data.toString('utf8').replaceAll('__VERSION__', version)) : data };
  }),
  ...filesUnder(CDN).filter((file) => file.endsWith('.js')).map((file) => ({ path: `assets/${relative(CDN, file)}`, data: readFileSync(file) })),
];
if (!files.some((file) => file.path === 'assets/pulse-widgets.js')) throw new Error(`no CDN modules in ${CDN}: run npm run build:cdn first`);
mkdirSync(join(ROOT, 'dist/wordpress'), { recursive: true });
writeFileSync(PLUGIN_ZIP, zip(files.map((file) => ({ ...file, path: `pulse-widgets/${file.path.split('\\').join('/')}` }))));
console.log(`WordPress plugin written to ${relative(ROOT, PLUGIN_ZIP)} (${files.length} files)`);
