<?php
/** The editors' dashboard widget: people on the site now, the pages they read, where they come from. */

namespace PulseWidgets;

if (!defined('ABSPATH')) {
	exit;
}

function render_dashboard_widget(): void {
	$widgets = render('live-counter', array()) . render('top-pages', array('limit' => '10')) . render('referrer-bars', array('limit' => '5'));
	if ($widgets !== '') {
		echo '<div class="pulse-widgets-dashboard">' . $widgets . '</div>'; // phpcs:ignore WordPress.Security.EscapeOutput -- tag() escapes.
		return;
	}
	echo '<p>' . esc_html__('Set the site ID under Settings → pulse-widgets to see your audience here.', 'pulse-widgets') . '</p>';
}

add_action('wp_dashboard_setup', function (): void {
	if (current_user_can('edit_posts')) {
		wp_add_dashboard_widget('pulse_widgets_dashboard', __('Live audience', 'pulse-widgets'), __NAMESPACE__ . '\render_dashboard_widget');
	}
});

add_action('admin_head-index.php', function (): void {
	echo '<style>.pulse-widgets-dashboard{display:grid;gap:12px}</style>';
});
