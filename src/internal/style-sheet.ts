import type { CSSResult, CSSResultOrNative } from '@lit/reactive-element';

/**
 * The style sheets every element shares (the card's, the counter's), in a form both of our bases
 * adopt: Lit takes an object with a `styleSheet` as it takes its own `css` results, and the lean
 * base adopts the same constructed `CSSStyleSheet`. So a page with only a counter does not load
 * Lit's `css` tag for two sheets, and a page with every element builds each sheet once.
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

/** A sheet among a Lit element's `styles`: Lit adopts anything with a `styleSheet`, though its types name only its own class. */
export const litStyles = (sheet: StyleSheet): CSSResult => sheet as unknown as CSSResult;
