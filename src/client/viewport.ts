/** Tells `onChange` whether an element is near the viewport, now and whenever that changes; returns the way to stop. */
export type WatchNear = (element: Element, onChange: (near: boolean) => void) => () => void;

/** How far beyond the viewport an element counts as near: one viewport height, so its data is in before it scrolls into view. */
const NEAR_MARGIN = '100% 0px';

const watched = new WeakMap<Element, (near: boolean) => void>();
let observer: IntersectionObserver | undefined;

/** The browser's answer, from one IntersectionObserver for the page. */
export const watchNearViewport: WatchNear = (element, onChange) => {
  observer ??= new IntersectionObserver((entries) => {
    for (const entry of entries) watched.get(entry.target)?.(entry.isIntersecting);
  }, { rootMargin: NEAR_MARGIN });
  watched.set(element, onChange);
  observer.observe(element);
  return () => {
    observer!.unobserve(element);
    watched.delete(element);
  };
};
