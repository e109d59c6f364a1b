/** Writes one benchmark's text into BENCHMARKS.md between `<!-- name -->` and `<!-- /name -->`. */
import { readFile, writeFile } from 'node:fs/promises';

const REPORT = new URL('../BENCHMARKS.md', import.meta.url);

export async function replaceSection(name, text) {
  const start = `<!-- ${name} -->`;
  const end = `<!-- /${name} -->`;
  const current = await readFile(REPORT, 'utf8').catch(() => '# Benchmarks\n');
  const block = `${start}\n${text}\n${end}`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from !== -1 && to > from
      ? current.slice(0, from) + block + current.slice(to + end.length)
      : `${current.trimEnd()}\n\n${block}\n`;
  await writeFile(REPORT, next);
}
