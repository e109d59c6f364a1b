/** Types of scripts/browsers.mjs, for the TypeScript tests and scripts that launch browsers. */
export type Engine = 'chromium' | 'firefox' | 'webkit';
export const ENGINES: readonly Engine[];
export const DEBIAN_PACKAGES: Record<Engine, string[]>;
export const CHROMIUM_ARGS: string[];
export const FIREFOX_PREFS: Record<string, number | boolean>;
export function selectedEngines(): Engine[];
export function findChromium(): string | undefined;
export function findFirefox(): string | undefined;
export function findWebKit(): { miniBrowser: string; driver: string; xvfb: string } | undefined;
export function findEngine(engine: Engine): unknown;
export function installHint(engine: Engine): string;
export function webKitCapabilities(miniBrowser: string): Record<string, unknown>;
export function startWebKitDrivers(count?: number): Promise<{ urls: string[]; capabilities: Record<string, unknown>; stop(): void }>;
export const PATH_VARIABLES: Record<Engine, string>;
export function oldestDriven(): Promise<{ chromium: number; firefox: number }>;
export function engineMajor(engine: Engine): number | undefined;
export function outdatedEngines(engines: readonly Engine[]): Promise<{ engine: Engine; hint: string }[]>;
