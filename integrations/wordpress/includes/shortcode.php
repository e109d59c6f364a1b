<?php
/**
 * `[pulse top-pages limit="5" hide-numbers]`: any element by name (or element="…"), its query
 * parameters and attributes as in the element's documentation; a bare word is a boolean attribute.
 */

namespace PulseWidgets;

if (!defined('ABSPATH')) {
	exit;
}

/**
 * The element and its attributes from a shortcode's: WordPress hands bare words over as
 * numbered values, the first one naming an element is the element, the others are flags.
 *
 * @return array{0: string, 1: array}
 */
function shortcode_attributes(array $atts): array {
	$name = '';
	$given = array();
	foreach ($atts as $key => $value) {
		if (!is_int($key)) {
			$given[$key] = $value;
		} elseif ($name === '' && isset(elements()[$value])) {
			$name = $value;
		} else {
			$given[strtolower($value)] = true;
		}
	}
	if (isset($given['element'])) {
		$name = (string) $given['element'];
	}
	return array($name, $given);
}

add_shortcode('pulse', function ($atts): string {
	list($name, $given) = shortcode_attributes(is_array($atts) ? $atts : array());
	$html = render($name, $given);
	if ($html !== '' || !current_user_can('edit_posts')) {
		return $html;
	}
	// Only someone who can fix it sees why nothing shows.
	return '<p class="pulse-widgets-notice">' . esc_html(sprintf(
		/* translators: %s: the list of element names */
		__('[pulse] shows nothing here: name an element (%s) and a site ID, in the shortcode (host="example.com") or under Settings → pulse-widgets.', 'pulse-widgets'),
		implode(', ', array_keys(elements()))
	)) . '</p>';
});
