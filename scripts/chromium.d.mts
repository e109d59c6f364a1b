/** Types of scripts/chromium.mjs, for the TypeScript tests that launch Chromium. */
export function findChromium(): string | undefined;
