/**
 * The few W3C WebDriver (classic) commands our harnesses use, over fetch: enough to open a page,
 * run a script in it and close the session. WebKitWebDriver speaks only this protocol.
 */

/**
 * A hang guard, not a speed target: no command of ours takes a minute even on a busy machine, and
 * without it a driver that never answers shows only as undici's "fetch failed" after 300 s.
 */
const ANSWER_WITHIN_MS = 60_000;

async function command(method, url, body) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  }).catch((error) => {
    throw new Error(
      `WebDriver ${method} ${new URL(url).pathname}: no answer within ${ANSWER_WITHIN_MS / 1000} s (${error.name})`,
      { cause: error },
    );
  });
  const { value } = await response.json();
  if (!response.ok || value?.error)
    throw new Error(
      `WebDriver ${method} ${new URL(url).pathname}: ${value?.error} ${value?.message ?? ''}`.trim(),
    );
  return value;
}

export class WebDriverSession {
  /** Opens a session on the driver at `driverUrl` (`http://127.0.0.1:port`). */
  static async create(driverUrl, capabilities) {
    const { sessionId, capabilities: granted } = await command('POST', `${driverUrl}/session`, {
      capabilities,
    });
    return new WebDriverSession(`${driverUrl}/session/${sessionId}`, granted);
  }

  constructor(base, capabilities) {
    this.base = base;
    this.capabilities = capabilities;
  }

  /** Loads `url` and resolves once it has loaded. */
  navigate(url) {
    return command('POST', `${this.base}/url`, { url });
  }

  currentUrl() {
    return command('GET', `${this.base}/url`);
  }

  /** Runs the body of a function (`return …`) in the page with `args` and resolves with its result. */
  execute(script, args = []) {
    return command('POST', `${this.base}/execute/sync`, { script, args });
  }

  /** Like `execute`, the result handed to the last argument (a callback) instead of returned. */
  executeAsync(script, args = []) {
    return command('POST', `${this.base}/execute/async`, { script, args });
  }

  setScriptTimeout(ms) {
    return command('POST', `${this.base}/timeouts`, { script: ms });
  }

  delete() {
    return command('DELETE', this.base);
  }
}
