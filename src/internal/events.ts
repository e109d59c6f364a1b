import type { PollError } from '../client/index.ts';

/** New data arrived (its identity changed). Bubbles out of shadow roots. */
export class PulseDataEvent<T = unknown> extends Event {
  static readonly eventName = 'pulse-data';
  /** The validated response body. */
  readonly data: T;
  /** When the data was produced, in ms since the epoch on this page's clock. */
  readonly updatedAt: number | undefined;

  constructor(data: T, updatedAt: number | undefined) {
    super(PulseDataEvent.eventName, { bubbles: true, composed: true });
    this.data = data;
    this.updatedAt = updatedAt;
  }
}

/** A request failed, or `src` cannot be used. Bubbles out of shadow roots. */
export class PulseErrorEvent extends Event {
  static readonly eventName = 'pulse-error';
  readonly error: PollError;
  /** True when earlier data is still shown (marked stale). */
  readonly hasData: boolean;

  constructor(error: PollError, hasData: boolean) {
    super(PulseErrorEvent.eventName, { bubbles: true, composed: true });
    this.error = error;
    this.hasData = hasData;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'pulse-data': PulseDataEvent;
    'pulse-error': PulseErrorEvent;
  }
}
