import { css } from './style-sheet.ts';

/**
 * The buttons of the elements that have any. Apart from the base styles, in a module of its own:
 * a module-level css`` stays in every bundle that imports its module, used or not.
 */
export const buttonStyles = css`
  button {
    padding: 0.125em 0.625em;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 2);
    background: transparent;
    color: var(--_accent);
    font: inherit;
    cursor: pointer;
  }

  button:focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }
`;
