import { noChange } from 'lit/html.js';
import { Directive, directive, PartType, type ElementPart, type PartInfo } from 'lit/directive.js';

export type CssProperties = Readonly<Record<`--${string}`, string>>;

// biome-ignore lint/suspicious/noTemplateCurlyInString: the message shows the template a user should write.
const WRONG_POSITION = 'cssProperties() belongs in element position: <span ${cssProperties(…)}>';

/**
 * Sets custom properties through CSSOM (`element.style.setProperty`), in element position:
 * `<span ${cssProperties({ '--pulse-fill': '0.5' })}>`. A strict Content-Security-Policy blocks
 * `style` attributes (`style-src-attr`) but not CSSOM, and Lit's `styleMap` writes the attribute
 * on its first render; this never does. Values that did not change are not set again.
 */
class CssPropertiesDirective extends Directive {
  #previous: CssProperties = {};

  constructor(partInfo: PartInfo) {
    super(partInfo);
    if (partInfo.type !== PartType.ELEMENT) throw new Error(WRONG_POSITION);
  }

  render(_properties: CssProperties): typeof noChange {
    return noChange;
  }

  override update(part: ElementPart, [properties]: [CssProperties]): typeof noChange {
    const style = (part.element as HTMLElement).style;
    for (const name in this.#previous) if (!(name in properties)) style.removeProperty(name);
    for (const name in properties) {
      const value = properties[name as keyof CssProperties]!;
      if (this.#previous[name as keyof CssProperties] !== value) style.setProperty(name, value);
    }
    this.#previous = properties;
    return noChange;
  }
}

export const cssProperties = directive(CssPropertiesDirective);
