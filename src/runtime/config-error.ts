/** A setting that cannot be used: one line for the operator, naming the setting. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
