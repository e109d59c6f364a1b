<?php
/**
 * The "Most read now" widget for classic themes' sidebars (block themes use the pattern in
 * blocks.php): the top pages of the site, ranks and titles only by default.
 */

namespace PulseWidgets;

if (!defined('ABSPATH')) {
	exit;
}

class Most_Read_Widget extends \WP_Widget {
	private const DEFAULTS = array('title' => '', 'host' => '', 'limit' => 5, 'hide_numbers' => true);

	public function __construct() {
		parent::__construct('pulse_widgets_most_read', __('Most read now (pulse-widgets)', 'pulse-widgets'), array(
			'description' => __('The pages most read right now, live.', 'pulse-widgets'),
			'show_instance_in_rest' => true,
		));
	}

	/** The element's own heading is the widget's title, so the sidebar shows one heading. */
	public function widget($args, $instance): void {
		$instance = wp_parse_args((array) $instance, self::DEFAULTS);
		$html = render('top-pages', array(
			'host' => $instance['host'],
			'label' => $instance['title'] !== '' ? $instance['title'] : __('Most read now', 'pulse-widgets'),
			'limit' => (string) $instance['limit'],
			'articles-only' => true,
			'hide-numbers' => (bool) $instance['hide_numbers'],
		));
		if ($html === '') {
			return;
		}
		echo $args['before_widget'] . $html . $args['after_widget']; // phpcs:ignore WordPress.Security.EscapeOutput -- the theme's wrappers; tag() escapes the element.
	}

	public function form($instance): string {
		$instance = wp_parse_args((array) $instance, self::DEFAULTS);
		$fields = array(
			'title' => __('Title (empty: "Most read now")', 'pulse-widgets'),
			'host' => __('Site ID (empty: the default)', 'pulse-widgets'),
			'limit' => __('Pages shown', 'pulse-widgets'),
		);
		foreach ($fields as $key => $label) {
			printf(
				'<p><label for="%1$s">%2$s</label><input class="widefat" id="%1$s" name="%3$s" type="%4$s" value="%5$s"></p>',
				esc_attr($this->get_field_id($key)),
				esc_html($label),
				esc_attr($this->get_field_name($key)),
				$key === 'limit' ? 'number' : 'text',
				esc_attr((string) $instance[$key])
			);
		}
		printf(
			'<p><input class="checkbox" type="checkbox" id="%1$s" name="%2$s" %3$s><label for="%1$s">%4$s</label></p>',
			esc_attr($this->get_field_id('hide_numbers')),
			esc_attr($this->get_field_name('hide_numbers')),
			checked((bool) $instance['hide_numbers'], true, false),
			esc_html__('Ranks and titles only (no reader counts)', 'pulse-widgets')
		);
		return 'form';
	}

	public function update($new_instance, $old_instance): array {
		$host = strtolower(trim((string) ($new_instance['host'] ?? '')));
		return array(
			'title' => sanitize_text_field((string) ($new_instance['title'] ?? '')),
			'host' => preg_match(HOST_PATTERN, $host) ? $host : '',
			'limit' => max(1, min(100, absint($new_instance['limit'] ?? 5))),
			'hide_numbers' => !empty($new_instance['hide_numbers']),
		);
	}
}

add_action('widgets_init', function (): void {
	register_widget(Most_Read_Widget::class);
});
