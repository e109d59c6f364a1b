<?php
/**
 * The elements the plugin offers and how one is written as a tag: the one place the shortcode,
 * the blocks, the widget and the dashboard widget get their markup from.
 */

namespace PulseWidgets;

if (!defined('ABSPATH')) {
	exit;
}

/** A site ID as the cache endpoint accepts it (src/api/params.ts of the package). */
const HOST_PATTERN = '/^(?:video@)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/';

/** The element's colour scheme; `auto`, the element's default, follows the page's color-scheme. */
const THEMES = array('light', 'dark', 'auto');

/** What every element takes besides `src` and `theme`. */
const COMMON_ATTRIBUTES = array('label' => 'string', 'no-heading' => 'boolean');

/**
 * Every element: its title, its resource on the cache endpoint, and the query parameters and
 * element attributes a shortcode or block may set. A type is 'string', 'number' (a whole number),
 * 'boolean' (a bare attribute), 'url' (http or https only) or the list of allowed values (the
 * element's default first). Every element also takes `host`, `theme`, `label` and `no-heading`.
 */
function elements(): array {
	$path = array('path' => 'string');
	return array(
		'top-pages' => array(
			'title' => __('Most read pages (live)', 'pulse-widgets'),
			'route' => 'live/toppages/v3/',
			'query' => array('limit' => 'number', 'section' => 'string', 'author' => 'string'),
			'attributes' => array(
				'max' => 'number',
				'articles-only' => 'boolean',
				'hide-numbers' => 'boolean',
				'strip-title' => 'string',
				'link-base' => 'url',
			),
		),
		'live-counter' => array(
			'title' => __('People on the site now', 'pulse-widgets'),
			'route' => 'live/quickstats/v4/',
			'query' => $path,
			'attributes' => array('metric' => 'string', 'threshold' => 'number', 'round' => 'number', 'history' => 'number'),
		),
		'traffic-chart' => array(
			'title' => __('Today against a typical day', 'pulse-widgets'),
			'route' => 'live/quickstats/v4/',
			'query' => array(),
			'attributes' => array('metric' => 'string', 'range' => array('today', '24h', '7d')),
		),
		'geo-list' => array(
			'title' => __('Where readers are (live)', 'pulse-widgets'),
			'route' => 'live/top_geo/v1/',
			'query' => array('limit' => 'number'),
			'attributes' => array('segment' => array('countries', 'regions', 'cities', 'metro_codes'), 'max' => 'number'),
		),
		'referrer-bars' => array(
			'title' => __('Referrers (live)', 'pulse-widgets'),
			'route' => 'live/referrers/v3/',
			'query' => array('limit' => 'number') + $path,
			'attributes' => array('max' => 'number', 'grouped' => 'boolean'),
		),
		'traffic-sources' => array(
			'title' => __('Traffic sources (live)', 'pulse-widgets'),
			'route' => 'live/quickstats/v4/',
			'query' => $path,
			'attributes' => array('sources' => 'string'),
		),
		'platform-split' => array(
			'title' => __('Platforms and loyalty (live)', 'pulse-widgets'),
			'route' => 'live/quickstats/v4/',
			'query' => $path,
			'attributes' => array('breakdown' => array('platform', 'platform_engaged', 'loyalty'), 'max' => 'number'),
		),
		'engagement-histogram' => array(
			'title' => __('Engagement histogram (live)', 'pulse-widgets'),
			'route' => 'live/quickstats/v4/',
			'query' => $path,
			'attributes' => array(
				'histogram' => array('engaged_time', 'engaged_visit', 'visit', 'writing_visit', 'scroll', 'domload'),
				'show-table' => 'boolean',
			),
		),
		'summary-stats' => array(
			'title' => __('Summary statistics (live)', 'pulse-widgets'),
			'route' => 'live/summary/v3/',
			'query' => array('keys' => 'string') + $path,
			'attributes' => array('max' => 'number'),
		),
	);
}

/**
 * A value checked against its type: the value to write, true for a boolean that is set, or null
 * when it is missing, empty or not of the type (then the attribute is left out).
 *
 * @param mixed        $raw  From a shortcode (strings) or a block (typed JSON).
 * @param string|array $type
 * @return string|true|null
 */
function typed_value($raw, $type) {
	if ($raw === null || $raw === '' || $raw === false) {
		return null;
	}
	if (is_array($type)) {
		return in_array($raw, $type, true) ? $raw : null;
	}
	switch ($type) {
		case 'boolean':
			return ($raw === true || in_array(strtolower((string) $raw), array('1', 'true', 'yes', 'on'), true)) ? true : null;
		case 'number':
			return (is_int($raw) && $raw >= 0) || (is_string($raw) && ctype_digit($raw) && strlen($raw) <= 9) ? (string) (int) $raw : null;
		case 'url':
			return is_string($raw) && in_array(wp_parse_url($raw, PHP_URL_SCHEME), array('http', 'https'), true) ? $raw : null;
		default:
			$text = is_scalar($raw) ? sanitize_text_field((string) $raw) : '';
			return $text === '' ? null : $text;
	}
}

/**
 * The address of a resource on the cache endpoint: the endpoint setting (a path on this site such
 * as `/pulse`, or an http(s) address), the route, and the query.
 */
function endpoint_url(string $endpoint, string $route, array $query): string {
	return rtrim($endpoint, '/') . '/' . $route . '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986);
}

/** `<name attr="value" flag></name>`, every value escaped for its attribute. */
function tag(string $name, array $attributes): string {
	$html = '<' . $name;
	foreach ($attributes as $key => $value) {
		if ($value === true) {
			$html .= ' ' . $key;
		} else {
			$is_url = $key === 'src' || $key === 'link-base';
			$html .= ' ' . $key . '="' . ($is_url ? esc_url($value, array('http', 'https')) : esc_attr($value)) . '"';
		}
	}
	return $html . '></' . $name . '>';
}

/**
 * The tag of one element from shortcode or block attributes (unknown ones ignored, each value
 * checked against its type), or '' when the element or the site ID is unknown.
 */
function element_html(string $name, array $given, array $settings): string {
	$spec = elements()[$name] ?? null;
	$host = strtolower(trim((string) ($given['host'] ?? '')));
	if ($host === '') {
		$host = $settings['host'];
	}
	if ($spec === null || !preg_match(HOST_PATTERN, $host)) {
		return '';
	}
	$query = array('host' => $host);
	foreach ($spec['query'] as $key => $type) {
		$value = typed_value($given[$key] ?? null, $type);
		if ($value !== null) {
			$query[$key] = $value;
		}
	}
	$attributes = array('src' => endpoint_url($settings['endpoint'], $spec['route'], $query));
	$theme = typed_value($given['theme'] ?? null, THEMES) ?? $settings['theme'];
	if ($theme !== 'auto') {
		$attributes['theme'] = $theme;
	}
	foreach (COMMON_ATTRIBUTES + $spec['attributes'] as $key => $type) {
		$value = typed_value($given[$key] ?? null, $type);
		if ($value !== null) {
			$attributes[$key] = $value;
		}
	}
	return tag($name, $attributes);
}

/** An element's tag with its script enqueued, or '' (see element_html). */
function render(string $name, array $given): string {
	$html = element_html($name, $given, settings());
	if ($html !== '') {
		enqueue_element($name);
	}
	return $html;
}
