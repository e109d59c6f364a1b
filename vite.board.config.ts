/**
 * The board page (src/board/) into dist/board, which `pulse-widgets serve` serves at /board/
 * (src/server/board-page.ts finds it beside its own module). `npm run build:board`.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('src/board/', import.meta.url));

export default defineConfig({
  root,
  base: '/board/',
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('dist/board/', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No modulepreload polyfill: it would be the only inline-looking helper, and every browser a board runs on has modulepreload.
    modulePreload: { polyfill: false },
    rolldownOptions: { input: { index: `${root}index.html`, builder: `${root}builder.html` } },
  },
});
