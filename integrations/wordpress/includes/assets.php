<?php
/**
 * The elements' scripts: the package's CDN modules, copied into assets/ by the build. Public
 * pages load one small file per element they show; wp-admin (the dashboard, the settings page, the
 * block editor and its preview) loads the full bundle. The language file follows the locale.
 * Public pages also get pulse-widgets.css, which gives each element its box before its module has
 * run: without it the article's text jumps when the element fills (layout shift).
 *
 * They are registered as classic scripts and printed with type="module" by a script_loader_tag
 * filter: that works on every WordPress this plugin supports, while wp_enqueue_script_module()
 * exists only from 6.5 on (Debian 12 ships 6.1).
 */

namespace PulseWidgets;

if (!defined('ABSPATH')) {
	exit;
}

const BUNDLE = 'pulse-widgets';
/** The elements' boxes before their modules run (a style handle: styles and scripts are apart). */
const BOXES = 'pulse-widgets';
const LOCALE_HANDLE = 'pulse-widgets-locale';

function element_handle(string $name): string {
	return 'pulse-widgets-' . $name;
}

function asset_url(string $file): string {
	return plugins_url('assets/' . $file, PLUGIN_FILE);
}

/** Every handle printed as a module. */
function module_handles(): array {
	$handles = array(BUNDLE, LOCALE_HANDLE);
	foreach (array_keys(elements()) as $name) {
		$handles[] = element_handle($name);
	}
	return $handles;
}

/** The language file's handle when the locale has one. */
function language_handles(): array {
	return wp_script_is(LOCALE_HANDLE, 'registered') ? array(LOCALE_HANDLE) : array();
}

/** What wp-admin loads for the elements: the full bundle and the language. */
function admin_handles(): array {
	return array_merge(array(BUNDLE), language_handles());
}

add_action('init', function (): void {
	wp_register_script(BUNDLE, asset_url('pulse-widgets.js'), array(), VERSION, true);
	wp_register_style(BOXES, asset_url('pulse-widgets.css'), array(), VERSION);
	foreach (array_keys(elements()) as $name) {
		wp_register_script(element_handle($name), asset_url($name . '.js'), array(), VERSION, true);
	}
	$language = language_for(determine_locale(), available_languages());
	if ($language !== '') {
		wp_register_script(LOCALE_HANDLE, asset_url('locales/' . $language . '.js'), array(), VERSION, true);
	}
}, 5);

/** A script tag as a module tag: a theme without html5 script support adds type="text/javascript". */
function module_tag(string $tag): string {
	$tag = (string) preg_replace('/\stype=([\'"])[^\'"]*\1/', '', $tag, 1);
	return (string) preg_replace('/<script\b/', '<script type="module"', $tag, 1);
}

add_filter('script_loader_tag', function (string $tag, string $handle): string {
	return in_array($handle, module_handles(), true) ? module_tag($tag) : $tag;
}, 10, 2);

/** Loads what an element needs where it is shown: its own file on public pages, the bundle in wp-admin. */
function enqueue_element(string $name): void {
	foreach (is_admin() ? admin_handles() : array_merge(array(element_handle($name)), language_handles()) as $handle) {
		wp_enqueue_script($handle);
	}
	if (!is_admin()) {
		wp_enqueue_style(BOXES);
	}
}

/** Tags written by hand (a role the settings let keep them, a Custom HTML block or widget) load their modules too. */
function enqueue_written_elements(string $html): string {
	foreach (array_keys(elements()) as $name) {
		if (preg_match('/<' . $name . '[\s>]/', $html)) {
			enqueue_element($name);
		}
	}
	return $html;
}

foreach (array('the_content', 'widget_text_content', 'widget_block_content') as $filter) {
	add_filter($filter, __NAMESPACE__ . '\enqueue_written_elements', 20);
}
