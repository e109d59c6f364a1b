/**
 * The package's version, for the upstream User-Agent. The library build stamps it in
 * (`define` in vite.lib.config.ts), so the published files never read package.json; run from
 * source (tsx: tests, `npm start`) it comes from the repository's package.json.
 */
import { createRequire } from 'node:module';

declare const __PULSE_WIDGETS_VERSION__: string | undefined;

export const VERSION: string =
  typeof __PULSE_WIDGETS_VERSION__ === 'string'
    ? __PULSE_WIDGETS_VERSION__
    : (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
