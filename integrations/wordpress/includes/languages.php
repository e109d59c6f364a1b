<?php
/**
 * One choice of language for the plugin's own words (settings, blocks, widgets) and the elements'
 * language file: the languages the package translates, by language rather than region, so de_AT
 * and de_CH read German as de_DE does.
 */

namespace PulseWidgets;

if (!defined('ABSPATH')) {
	exit;
}

/** The languages of assets/locales/ besides English, which every file has built in. */
function available_languages(): array {
	$files = glob(dirname(__DIR__) . '/assets/locales/*.js');
	return array_map(function (string $file): string {
		return basename($file, '.js');
	}, $files ? $files : array());
}

/**
 * The language file for a WordPress locale (`de_DE`, `pt_BR`, `ja`), or '' for English and
 * languages with no translation (the elements then speak English).
 */
function language_for(string $locale, array $available): string {
	$language = strtolower((string) preg_replace('/[_-].*$/', '', $locale));
	return in_array($language, $available, true) ? $language : '';
}

/** The plugin's translations are named by language (languages/pulse-widgets-de.mo). */
add_filter('plugin_locale', function (string $locale, string $domain): string {
	$language = $domain === 'pulse-widgets' ? language_for($locale, available_languages()) : '';
	return $language !== '' ? $language : $locale;
}, 10, 2);

// Before widgets_init (init, priority 1), whose widget names are translated.
add_action('init', function (): void {
	load_plugin_textdomain('pulse-widgets', false, dirname(plugin_basename(PLUGIN_FILE)) . '/languages');
}, 0);
