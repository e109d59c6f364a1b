/**
 * The board builder (`/board/builder.html`): a plain GET form whose submission is the board's
 * address. This script only lists the served sites and fills the form from the address it was
 * opened with, so "Set up this board" edits the board on screen.
 */
import type { TextTerm } from '../locales/en.ts';
import { boardLanguage, parseBoardParams } from './board-config.ts';
import { loadServed } from './served.ts';

const form = document.querySelector<HTMLFormElement>('#builder')!;
const sitesField = document.querySelector<HTMLFieldSetElement>('#sites')!;
const status = document.querySelector<HTMLElement>('#sites-status')!;

const params = new URLSearchParams(location.search);
// The builder speaks the language of the board it sets up.
const language = boardLanguage(params);
const { terms, lang, dir, english } = language;
document.documentElement.lang = english ? 'en' : lang;
document.documentElement.dir = dir;
for (const node of document.querySelectorAll<HTMLElement>('[data-term]'))
  node.textContent = terms[node.dataset.term as TextTerm];

const served = await loadServed(
  (seconds) => (status.textContent = terms.boardRetrying(language.count(seconds))),
);
const { config } = parseBoardParams(params, served);

sitesField.replaceChildren(
  sitesField.querySelector('legend')!,
  ...served.hosts.map((host) => {
    const label = document.createElement('label');
    const box = Object.assign(document.createElement('input'), {
      type: 'checkbox',
      name: 'sites',
      value: host,
      checked: config.sites.includes(host),
    });
    label.append(box, ` ${host}`);
    return label;
  }),
);

for (const box of form.querySelectorAll<HTMLInputElement>('input[name=cards]'))
  box.checked = config.cards.includes(box.value as never);
form.querySelector<HTMLSelectElement>('select[name=theme]')!.value = config.theme;
form.querySelector<HTMLSelectElement>('select[name=size]')!.value = config.size;
form.querySelector<HTMLInputElement>('input[name=numbers]')!.checked = config.hideNumbers;
form.querySelector<HTMLInputElement>('input[name=lang]')!.value = config.lang ?? '';
form.querySelector<HTMLInputElement>('input[name=rotate]')!.value = config.rotate
  ? String(config.rotate)
  : '';
form.querySelector<HTMLInputElement>('input[name=title]')!.value = config.title;
