/**
 * What the packed Markdown may point at: a reader of node_modules/pulse-widgets/ has the tarball
 * and nothing else, so every relative link must name a file in it, and no doc may tell them to run
 * a command that only a checkout of the repository has (`npm run …`, `scripts/…`).
 */
import { posix } from 'node:path';

/** Link and image targets, as written: `[text](target)`, `![alt](target "title")`. */
function linkTargets(markdown: string): string[] {
  return [...markdown.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (match) => match[1]!,
  );
}

/**
 * The relative links of `file` (a path in the package) that name no path of `packed`: in-page
 * anchors and absolute addresses are not relative; a folder link needs a file under it.
 */
export function brokenLinks(file: string, markdown: string, packed: readonly string[]): string[] {
  return linkTargets(markdown).filter((target) => {
    if (target.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(target)) return false;
    const path = posix.normalize(posix.join(posix.dirname(file), target.replace(/[?#].*$/, '')));
    return path.endsWith('/')
      ? !packed.some((packedPath) => packedPath.startsWith(path))
      : !packed.includes(path);
  });
}

/** The README's section for contributors, where repository commands belong. */
const REPOSITORY_SECTION = /^## From this repository\n[\s\S]*?(?=^## )/m;

/** Commands in `markdown` that only a checkout of the repository can run. */
export function repositoryCommands(markdown: string): string[] {
  const text = markdown.replace(REPOSITORY_SECTION, '');
  return [
    ...text.matchAll(/\b(?:npm run [\w:-]+|npm start\b|node --import tsx|npx tsx\b|scripts\/[\w./-]+)/g),
  ].map((match) => match[0]);
}
