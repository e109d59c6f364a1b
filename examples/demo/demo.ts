/** The demo page: every element, a theme switch, and a footer line counting what the hub does. */
import { PulseElement, type Theme } from '../../src/index.ts';

/** Every card of the page: all the elements share the base class. */
function widgets(): PulseElement<unknown>[] {
  return [...document.querySelectorAll('main *')].filter(
    (el): el is PulseElement<unknown> => el instanceof PulseElement,
  );
}

const themeSelect = document.querySelector<HTMLSelectElement>('#theme')!;
themeSelect.addEventListener('change', () => {
  const theme = themeSelect.value as Theme;
  document.documentElement.dataset.theme = theme;
  for (const widget of widgets()) widget.theme = theme;
});

const activity = document.querySelector('#activity')!;
let updates = 0;
document.addEventListener('pulse-data', () => {
  updates++;
  const cards = widgets();
  const addresses = new Set(cards.map((widget) => widget.src)).size;
  activity.textContent = `${cards.length} cards on ${addresses} addresses; ${updates} data updates received.`;
});
document.addEventListener('pulse-error', (event) => {
  activity.textContent = `Last problem: ${event.error.message}`;
});
