/** Types of scripts/wordpress.mjs, for the WordPress plugin test. */
export const WORDPRESS_PACKAGES: string[];
export interface WordPressPrograms {
  wordpress: string;
  php: string;
  apache: string;
  phpModule: string;
  mariadbd: string;
  installDb: string;
}
export function findWordPress(): WordPressPrograms | undefined;
export function wordPressMissing(): string | undefined;
