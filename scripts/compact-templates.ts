/**
 * A Vite plugin that compacts the text of our lit templates (html``, svg``, css``) before
 * minifying, which leaves template text alone. The library build (vite.lib.config.ts) and the CDN
 * build (build-cdn.mjs) both use it, so an app bundling `dist/*.js` gets the same templates as a
 * CDN page. Every line of markup stays, so source-map lines still hold.
 */
import { parseSync, Visitor, type Plugin } from 'vite';

/**
 * Markup and CSS read a newline alone as the same white space: drop the indentation after each.
 * CSS (css``) loses the rest of what it does not need too: comments, space around `{ } ; , >`,
 * after `:`, and the last `;` of a block (about 0.15 kB gz of the four cards). Our css`` templates
 * interpolate only whole style sheets, so each piece between interpolations is rules.
 */
const COMPACT: Record<string, (text: string) => string> = {
  html: (text) => text.replace(/\n[ \t]+/g, '\n'),
  svg: (text) => text.replace(/\n[ \t]+/g, '\n'),
  css: (text) =>
    text
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\s+/g, ' ')
      .replace(/ ?([{};,>]) ?/g, '$1')
      .replace(/: /g, ':')
      .replace(/;}/g, '}'),
};

export function compactTemplates(): Plugin {
  return {
    name: 'pulse-compact-templates',
    enforce: 'pre',
    transform: {
      filter: { id: /\/src\/.*\.ts$/ },
      handler(code, id) {
        const spans: { start: number; end: number; compact: (text: string) => string }[] = [];
        new Visitor({
          TaggedTemplateExpression(node) {
            const compact = node.tag.type === 'Identifier' ? COMPACT[node.tag.name] : undefined;
            if (compact)
              spans.push(
                ...node.quasi.quasis.map((quasi) => ({ start: quasi.start, end: quasi.end, compact })),
              );
          },
        }).visit(parseSync(id, code).program);
        if (spans.length === 0) return null;
        let out = '';
        let at = 0;
        for (const { start, end, compact } of spans.sort((a, b) => a.start - b.start)) {
          out += code.slice(at, start) + compact(code.slice(start, end));
          at = end;
        }
        return { code: out + code.slice(at), map: null };
      },
    },
  };
}
