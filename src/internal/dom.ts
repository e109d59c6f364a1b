/**
 * The few DOM writes of an element drawn without Lit (`<live-counter>`): nodes made once, then
 * only what changed written again. Text is always text (`textContent`, text nodes), never markup.
 */

/** An element with attributes and children (strings become text nodes); an SVG element for `svg` and `polyline`. */
export function h(
  tag: string,
  attributes: Record<string, string> = {},
  ...children: (Node | string)[]
): Element {
  const element = /^(svg|polyline)$/.test(tag)
    ? document.createElementNS('http://www.w3.org/2000/svg', tag)
    : document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

/** Sets a node's text, unless it is that already (no mutation for the live region or a screen reader to notice). */
export function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** Sets an attribute to `value`, or removes it for `undefined`, unless it is that already. */
export function setAttribute(element: Element, name: string, value: string | undefined): void {
  if (value === undefined) element.removeAttribute(name);
  else if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

/** Makes `parent` hold exactly `children` (the falsy ones left out), in order, touching it only when that differs. */
export function place(parent: ParentNode, children: readonly (Node | false | undefined)[]): void {
  const wanted = children.filter((child): child is Node => !!child);
  const current = parent.childNodes;
  if (wanted.length !== current.length || wanted.some((child, index) => child !== current[index]))
    parent.replaceChildren(...wanted);
}
