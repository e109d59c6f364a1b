/**
 * Debian's WordPress for the plugin test (test/wordpress.node.test.ts): the packages that bring
 * it with a web server and a database, and where their programs are. `npm test` installs the
 * packages once per machine when it runs as root with apt-get; the test skips with one line
 * otherwise.
 */
import { existsSync, readdirSync } from 'node:fs';

/**
 * WordPress 6.1 and PHP 8.2 on Debian 12 with its translations (the test site speaks German);
 * Apache with mod_php serves it, MariaDB holds it.
 */
export const WORDPRESS_PACKAGES = [
  'wordpress',
  'wordpress-l10n',
  'wordpress-theme-twentytwentythree',
  'apache2',
  'libapache2-mod-php',
  'mariadb-server',
  'php-mysql',
];

const APACHE_MODULES = '/usr/lib/apache2/modules';

/** The programs the test site needs, or undefined when one is missing. */
export function findWordPress() {
  const found = {
    wordpress: '/usr/share/wordpress',
    php: ['/usr/bin/php'].find((path) => existsSync(path)),
    apache: ['/usr/sbin/apache2'].find((path) => existsSync(path)),
    phpModule: existsSync(APACHE_MODULES)
      ? readdirSync(APACHE_MODULES)
          .filter((name) => /^libphp[\d.]*\.so$/.test(name))
          .map((name) => `${APACHE_MODULES}/${name}`)[0]
      : undefined,
    mariadbd: ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].find((path) => existsSync(path)),
    installDb: ['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'].find((path) => existsSync(path)),
  };
  const complete =
    existsSync(`${found.wordpress}/wp-settings.php`) &&
    existsSync(`${found.wordpress}/wp-content/languages/de_DE.mo`) &&
    Object.values(found).every(Boolean);
  return complete ? found : undefined;
}

/** Why the WordPress test cannot run here, in one line; undefined when it can. */
export function wordPressMissing() {
  if (process.getuid?.() !== 0)
    return 'the WordPress test runs Apache as www-data and writes /etc/wordpress: it needs root';
  if (!findWordPress())
    return `Debian's WordPress is not installed (apt-get install ${WORDPRESS_PACKAGES.join(' ')})`;
  return undefined;
}
