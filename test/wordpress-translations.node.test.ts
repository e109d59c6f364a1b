/**
 * The WordPress plugin's own words (settings page, blocks, widgets, notices) in every language
 * the elements speak: each translation (integrations/wordpress/languages/<code>.json, compiled to
 * .mo by the build) has exactly the plugin's English strings, and keeps their placeholders and
 * the names a reader must type or recognise (`[pulse]`, `<top-pages>`, `unfiltered_html`, …).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LOCALE_ENTRIES } from '../vite.lib.config.ts';

const PLUGIN = fileURLToPath(new URL('../integrations/wordpress/', import.meta.url));
const TRANSLATION_CALL = /\b(?:__|esc_html__|esc_attr__|_e|esc_html_e|esc_attr_e)\(/g;
const LITERAL_CALL =
  /\b(?:__|esc_html__|esc_attr__|_e|esc_html_e|esc_attr_e)\(\s*'((?:[^'\\]|\\.)*)'\s*,\s*'pulse-widgets'\s*\)/g;
/** What a translation keeps as written: placeholders, code, settings, paths, attributes. */
const KEPT =
  /%s|color-scheme|\[pulse\]|<top-pages>|unfiltered_html|PULSE_ALLOWED_ORIGINS|ProxyPass \/pulse\/|--prefix \/pulse|host="[^"]*"|example\.com|pulse-widgets/g;

function pluginStrings(): string[] {
  const strings = new Set<string>();
  for (const file of readdirSync(PLUGIN, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith('.php'))) {
    const php = readFileSync(join(PLUGIN, file), 'utf8');
    const literal = [...php.matchAll(LITERAL_CALL)];
    assert.equal(
      literal.length,
      [...php.matchAll(TRANSLATION_CALL)].length,
      `${file}: every translated string is one literal in the 'pulse-widgets' domain`,
    );
    for (const match of literal) strings.add(match[1]!.replace(/\\(['\\])/g, '$1'));
  }
  return [...strings].sort();
}

const english = pluginStrings();
const languages = LOCALE_ENTRIES.map((entry) => entry.slice('locales/'.length));

test('the plugin has a translation for each language of the elements, and no other', () => {
  const files = readdirSync(join(PLUGIN, 'languages')).sort();
  assert.deepEqual(files, languages.map((code) => `${code}.json`).sort());
  assert.ok(english.length > 30, `found ${english.length} strings`);
});

for (const code of languages) {
  test(`${code}: every string of the plugin, translated, with its placeholders and names kept`, () => {
    const translation = JSON.parse(readFileSync(join(PLUGIN, 'languages', `${code}.json`), 'utf8')) as Record<
      string,
      string
    >;
    assert.deepEqual(Object.keys(translation).sort(), english);
    for (const [source, text] of Object.entries(translation)) {
      assert.deepEqual(
        (text.match(KEPT) ?? []).sort(),
        (source.match(KEPT) ?? []).sort(),
        `${code}: ${JSON.stringify(text)} keeps what ${JSON.stringify(source)} names`,
      );
      if (source !== 'pulse-widgets')
        assert.notEqual(text, source, `${code}: ${JSON.stringify(source)} is translated`);
    }
  });
}
