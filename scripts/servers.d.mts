/** Types of scripts/servers.mjs, for the Node tests that start real servers. */
export const REDIS_BINARY: string | undefined;
export const REDIS_CLI: string | undefined;
export const NGINX_BINARY: string | undefined;
export const APACHE_BINARY: string | undefined;
/** Why the tests of each server skip here, in one line; false where it is installed. */
export const REDIS_MISSING: string | false;
export const NGINX_MISSING: string | false;
export const APACHE_MISSING: string | false;
export interface DebianServer {
  name: string;
  packages: string[];
  present(): boolean;
}
export const SERVERS: DebianServer[];
