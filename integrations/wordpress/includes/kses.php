<?php
/**
 * Opt-in, per role: the roles ticked under Settings → pulse-widgets may keep the elements' tags
 * (and only their attributes) in what they save. Without it WordPress's kses filter deletes them
 * from the posts of every user without `unfiltered_html`, silently.
 */

namespace PulseWidgets;

if (!defined('ABSPATH')) {
	exit;
}

/** The attributes an element's tag may keep: the common ones and its own. */
function allowed_attributes(array $spec): array {
	$names = array_merge(array('src', 'theme', 'lang', 'dir', 'class', 'id'), array_keys(COMMON_ATTRIBUTES + $spec['attributes']));
	return array_fill_keys($names, true);
}

function current_user_keeps_tags(): bool {
	$roles = settings()['kses_roles'];
	return $roles !== array() && array_intersect(wp_get_current_user()->roles, $roles) !== array();
}

add_filter('wp_kses_allowed_html', function ($tags, $context) {
	if ($context !== 'post' || !is_array($tags) || !current_user_keeps_tags()) {
		return $tags;
	}
	foreach (elements() as $name => $spec) {
		$tags[$name] = allowed_attributes($spec);
	}
	return $tags;
}, 10, 2);
