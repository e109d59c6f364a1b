import type { CSSResultOrNative } from '@lit/reactive-element';

/**
 * The style sheets every element shares (the card's, the counter's): the lean base adopts their
 * constructed `CSSStyleSheet`, as it adopts Lit's `css` results (the elements' own styles). So a
 * page with only a counter does not load Lit's `css` tag for two sheets, and a page with every
 * element builds each sheet once.
 */
export class StyleSheet {
  readonly cssText: string;
  #sheet: CSSStyleSheet | undefined;

  constructor(cssText: string) {
    this.cssText = cssText;
  }

  /** The constructed sheet, made on first use (not on import: a module may be imported where there is no DOM). */
  get styleSheet(): CSSStyleSheet {
    if (!this.#sheet) {
      this.#sheet = new CSSStyleSheet();
      this.#sheet.replaceSync(this.cssText);
    }
    return this.#sheet;
  }
}

/** A style sheet from a template without interpolations; the build compacts `css` templates (scripts/compact-templates.ts). */
export const css = (strings: TemplateStringsArray): StyleSheet => new StyleSheet(strings.join(''));

/** Style sheets, ours or Lit's, nested as `static styles` may be. */
export type Styles = StyleSheet | CSSResultOrNative | readonly Styles[];
