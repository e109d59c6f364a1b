<?php
/** Deleting the plugin deletes its one option; posts keep their tags and shortcodes. */

if (!defined('WP_UNINSTALL_PLUGIN')) {
	exit;
}

delete_option('pulse_widgets');
