/**
 * Node tests only. The upstream as a socket whose answer has not come yet: while the gate is
 * held, every call waits at `pass`; a waiting call ends when the cache gives up on it (its signal
 * aborts), as a socket would, and the others go on when the gate is released.
 */
export class UpstreamGate {
  #held: Promise<void> | undefined;
  #waiting = 0;

  /** Calls waiting at the gate now. */
  get waiting(): number {
    return this.#waiting;
  }

  get held(): boolean {
    return this.#held !== undefined;
  }

  /** Holds every call from now on; the function returned lets them all go on. */
  hold(): () => void {
    let release!: () => void;
    this.#held = new Promise((resolve) => (release = resolve));
    return () => {
      this.#held = undefined;
      release();
    };
  }

  /** Resolves once the gate is open (at once when it is), rejects with the abort reason first. */
  pass(signal: AbortSignal): Promise<void> {
    const held = this.#held;
    if (!held) return Promise.resolve();
    this.#waiting += 1;
    return new Promise<void>((resolve, reject) => {
      const abort = () => {
        this.#waiting -= 1;
        reject(signal.reason);
      };
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      void held.then(() => {
        if (signal.aborted) return;
        signal.removeEventListener('abort', abort);
        this.#waiting -= 1;
        resolve();
      });
    });
  }
}
