/** PULSE_HOST_TZ: one time zone for every host (`Europe/Paris`) or per host (`example.com=Europe/Paris,*=UTC`). */
import { hostParam, timeZoneParam } from '../api/index.ts';
import { ConfigError } from '../runtime/config-error.ts';

export function checkHostTimeZones(items: readonly string[]): Record<string, string> {
  const zones: Record<string, string> = {};
  for (const item of items) {
    const [host, zone] = item.includes('=')
      ? (item.split('=', 2).map((part) => part.trim()) as [string, string])
      : ['*', item];
    if (!timeZoneParam.safeParse(zone).success)
      throw new ConfigError(`${JSON.stringify(zone)} is not a time zone such as Europe/Paris`);
    const checked = host === '*' ? host : hostParam.safeParse(host);
    if (checked !== '*' && !checked.success)
      throw new ConfigError(`${JSON.stringify(host)} is not a site ID such as example.com`);
    zones[checked === '*' ? '*' : checked.data] = zone;
  }
  return zones;
}
