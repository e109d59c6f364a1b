/** The demo page: every element, a theme switch, and a footer line counting what the hub does. */
import '../../src/index.ts';
import type { Theme } from '../../src/index.ts';

const WIDGETS = 'live-counter, top-pages, geo-list, referrer-bars';

const themeSelect = document.querySelector<HTMLSelectElement>('#theme')!;
themeSelect.addEventListener('change', () => {
  const theme = themeSelect.value as Theme;
  document.documentElement.dataset.theme = theme;
  for (const widget of document.querySelectorAll<HTMLElement & { theme: Theme }>(WIDGETS)) widget.theme = theme;
});

const activity = document.querySelector('#activity')!;
let updates = 0;
document.addEventListener('pulse-data', () => {
  updates++;
  const widgets = document.querySelectorAll(WIDGETS).length;
  const addresses = new Set([...document.querySelectorAll(WIDGETS)].map((widget) => widget.getAttribute('src'))).size;
  activity.textContent = `${widgets} cards on ${addresses} addresses; ${updates} data updates received.`;
});
document.addEventListener('pulse-error', (event) => {
  activity.textContent = `Last problem: ${event.error.message}`;
});
