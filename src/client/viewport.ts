/** Tells `onChange` whether an element is near the viewport, now and whenever that changes; returns the way to stop. */
export type WatchNear = (element: Element, onChange: (near: boolean) => void) => () => void;

/** How far beyond the viewport an element counts as near: one viewport height, so its data is in before it scrolls into view. */
const NEAR_MARGIN = '100% 0px';

/** The browser's answer: an IntersectionObserver on the element (a page has a few lazy elements, not hundreds). */
export const watchNearViewport: WatchNear = (element, onChange) => {
  const observer = new IntersectionObserver((entries) => onChange(entries.at(-1)!.isIntersecting), {
    rootMargin: NEAR_MARGIN,
  });
  observer.observe(element);
  return () => observer.disconnect();
};
