/**
 * The servers the Node tests run for real, all from Debian packages: Redis (the shared tier on one
 * server and on a Cluster of three, the history recorder), nginx (the micro-cache recipe, the proxy
 * configuration) and WordPress with Apache and MariaDB (the plugin). Where each program is and
 * which packages bring it: `npm test` installs what is missing once per machine when it runs as
 * root with apt-get, and a test whose server is missing skips, saying why in one line.
 */
import { existsSync } from 'node:fs';
import { findWordPress, WORDPRESS_PACKAGES } from './wordpress.mjs';

const firstExisting = (paths) => paths.find((path) => existsSync(path));
const REDIS_PATHS = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'];
const NGINX_PATHS = ['/usr/sbin/nginx', '/usr/bin/nginx'];

export const REDIS_BINARY = firstExisting(REDIS_PATHS);
export const REDIS_CLI = firstExisting(['/usr/bin/redis-cli', '/usr/local/bin/redis-cli']);
export const NGINX_BINARY = firstExisting(NGINX_PATHS);
export const APACHE_BINARY = firstExisting(['/usr/sbin/apache2', '/usr/sbin/httpd']);

const missing = (what, packages) =>
  `${what} not installed (Debian: apt-get install ${packages}; npm test installs it when run as root)`;

/** Why the tests of each server skip here, in one line; false where it is installed. */
export const REDIS_MISSING = REDIS_BINARY && REDIS_CLI ? false : missing('redis-server is', 'redis-server');
export const NGINX_MISSING = NGINX_BINARY ? false : missing('nginx is', 'nginx');
export const APACHE_MISSING = APACHE_BINARY ? false : missing('apache2 is', 'apache2');

/** Each server, the packages that bring it, and whether it is here (read when asked: an install changes it). */
export const SERVERS = [
  { name: 'Redis', packages: ['redis-server'], present: () => Boolean(firstExisting(REDIS_PATHS)) },
  { name: 'nginx', packages: ['nginx'], present: () => Boolean(firstExisting(NGINX_PATHS)) },
  { name: 'WordPress', packages: WORDPRESS_PACKAGES, present: () => Boolean(findWordPress()) },
];
