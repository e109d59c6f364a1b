<?php
/**
 * Plugin Name:       pulse-widgets
 * Description:       Live audience widgets (most read, people on the site now, sources, places) from your pulse-widgets cache endpoint: a shortcode, blocks with a live preview, a sidebar widget and pattern, and a dashboard widget for editors.
 * Version:           __VERSION__
 * Requires at least: 6.1
 * Requires PHP:      7.4
 * Author:            pulse-widgets maintainers
 * License:           MIT
 * Text Domain:       pulse-widgets
 *
 * The plugin never holds the API key: the elements ask the cache endpoint (`pulse-widgets serve`),
 * which holds it, at the address set under Settings → pulse-widgets.
 */

namespace PulseWidgets;

if (!defined('ABSPATH')) {
	exit;
}

const VERSION = '__VERSION__';
const PLUGIN_FILE = __FILE__;

require_once __DIR__ . '/includes/elements.php';
require_once __DIR__ . '/includes/languages.php';
require_once __DIR__ . '/includes/settings.php';
require_once __DIR__ . '/includes/assets.php';
require_once __DIR__ . '/includes/shortcode.php';
require_once __DIR__ . '/includes/blocks.php';
require_once __DIR__ . '/includes/widget.php';
require_once __DIR__ . '/includes/dashboard.php';
require_once __DIR__ . '/includes/kses.php';
