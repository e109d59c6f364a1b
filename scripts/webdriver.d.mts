/** Types of scripts/webdriver.mjs. */
export class WebDriverSession {
  static create(driverUrl: string, capabilities: Record<string, unknown>): Promise<WebDriverSession>;
  readonly capabilities: Record<string, unknown>;
  navigate(url: string): Promise<void>;
  currentUrl(): Promise<string>;
  execute<T = unknown>(script: string, args?: unknown[]): Promise<T>;
  executeAsync<T = unknown>(script: string, args?: unknown[]): Promise<T>;
  setScriptTimeout(ms: number): Promise<void>;
  delete(): Promise<void>;
}
