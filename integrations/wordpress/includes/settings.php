<?php
/**
 * Settings → pulse-widgets: where the cache endpoint is, the default site ID and theme, and which
 * roles may keep the elements' tags in what they write. One option, `pulse_widgets`.
 */

namespace PulseWidgets;

if (!defined('ABSPATH')) {
	exit;
}

const OPTION = 'pulse_widgets';
const PAGE = 'pulse-widgets';

/**
 * `/pulse` matches `pulse-widgets serve --prefix /pulse` behind one `ProxyPass /pulse/` on this
 * site (docs/cms/wordpress.md); `auto` is light unless the theme declares a dark color-scheme.
 */
function defaults(): array {
	return array('endpoint' => '/pulse', 'host' => '', 'theme' => 'auto', 'kses_roles' => array());
}

function settings(): array {
	$saved = get_option(OPTION, array());
	return array_merge(defaults(), is_array($saved) ? $saved : array());
}

/**
 * The endpoint as stored, or null when it is neither a path on this site nor an http(s) address:
 * the elements fetch it from every reader's browser.
 */
function checked_endpoint(string $value): ?string {
	$value = rtrim(trim($value), '/');
	if ($value === '') {
		return '';
	}
	if (preg_match('#^/(?![/\\\\])[A-Za-z0-9._~!$&\'()*+,;=:@%/-]*$#', $value)) {
		return $value;
	}
	$parts = wp_parse_url($value);
	$is_web = is_array($parts) && in_array($parts['scheme'] ?? '', array('http', 'https'), true) && !empty($parts['host']);
	return $is_web && !isset($parts['query']) && !isset($parts['fragment']) && esc_url_raw($value, array('http', 'https')) === $value ? $value : null;
}

/** Sanitizes the form: an invalid field keeps its saved value and says why. */
function sanitize_settings($input): array {
	$saved = settings();
	$input = is_array($input) ? $input : array();
	$clean = $saved;

	$endpoint = checked_endpoint((string) ($input['endpoint'] ?? ''));
	if ($endpoint === null) {
		add_settings_error(OPTION, 'endpoint', __('The endpoint must be a path on this site (such as /pulse) or an http or https address. It was not changed.', 'pulse-widgets'));
	} else {
		$clean['endpoint'] = $endpoint;
	}

	$host = strtolower(trim((string) ($input['host'] ?? '')));
	if ($host !== '' && !preg_match(HOST_PATTERN, $host)) {
		add_settings_error(OPTION, 'host', __('The site ID must look like example.com. It was not changed.', 'pulse-widgets'));
	} else {
		$clean['host'] = $host;
	}

	$clean['theme'] = in_array($input['theme'] ?? '', THEMES, true) ? $input['theme'] : $saved['theme'];
	$roles = isset($input['kses_roles']) && is_array($input['kses_roles']) ? $input['kses_roles'] : array();
	$clean['kses_roles'] = array_values(array_intersect(array_keys(wp_roles()->roles), $roles));
	return $clean;
}

add_action('admin_init', function (): void {
	register_setting(PAGE, OPTION, array('type' => 'array', 'sanitize_callback' => __NAMESPACE__ . '\sanitize_settings', 'default' => defaults()));
});

add_action('admin_menu', function (): void {
	add_options_page(__('pulse-widgets', 'pulse-widgets'), __('pulse-widgets', 'pulse-widgets'), 'manage_options', PAGE, __NAMESPACE__ . '\render_settings_page');
});

/** The name of a form field of the option. */
function field(string $key): string {
	return OPTION . '[' . $key . ']';
}

function render_settings_page(): void {
	if (!current_user_can('manage_options')) {
		return;
	}
	$settings = settings();
	?>
	<div class="wrap">
		<h1><?php echo esc_html__('pulse-widgets', 'pulse-widgets'); ?></h1>
		<p><?php echo esc_html__('The widgets ask your pulse-widgets cache endpoint for live data; the endpoint holds the API key. This plugin never sees the key: do not put it here.', 'pulse-widgets'); ?></p>
		<form method="post" action="options.php">
			<?php settings_fields(PAGE); ?>
			<table class="form-table" role="presentation">
				<tr>
					<th scope="row"><label for="pulse-endpoint"><?php echo esc_html__('Cache endpoint', 'pulse-widgets'); ?></label></th>
					<td>
						<input type="text" class="regular-text code" id="pulse-endpoint" name="<?php echo esc_attr(field('endpoint')); ?>" value="<?php echo esc_attr($settings['endpoint']); ?>">
						<p class="description"><?php echo esc_html__('A path on this site, such as /pulse for "pulse-widgets serve --prefix /pulse" behind "ProxyPass /pulse/" (recommended: no CORS), or an http(s) address of an endpoint on another origin that lists this site in PULSE_ALLOWED_ORIGINS.', 'pulse-widgets'); ?></p>
					</td>
				</tr>
				<tr>
					<th scope="row"><label for="pulse-host"><?php echo esc_html__('Site ID', 'pulse-widgets'); ?></label></th>
					<td>
						<input type="text" class="regular-text code" id="pulse-host" name="<?php echo esc_attr(field('host')); ?>" value="<?php echo esc_attr($settings['host']); ?>" placeholder="example.com">
						<p class="description"><?php echo esc_html__('The site whose audience the widgets show, unless a shortcode or block names another (host="…").', 'pulse-widgets'); ?></p>
					</td>
				</tr>
				<tr>
					<th scope="row"><label for="pulse-theme"><?php echo esc_html__('Theme', 'pulse-widgets'); ?></label></th>
					<td>
						<select id="pulse-theme" name="<?php echo esc_attr(field('theme')); ?>">
							<?php
							$themes = array(
								'light' => __('Light', 'pulse-widgets'),
								'dark' => __('Dark', 'pulse-widgets'),
								'auto' => __('Automatic: light unless the theme declares a dark color-scheme', 'pulse-widgets'),
							);
							foreach ($themes as $value => $label) {
								printf('<option value="%s"%s>%s</option>', esc_attr($value), selected($settings['theme'], $value, false), esc_html($label));
							}
							?>
						</select>
					</td>
				</tr>
				<tr>
					<th scope="row"><?php echo esc_html__('Tags in posts', 'pulse-widgets'); ?></th>
					<td>
						<fieldset>
							<legend class="screen-reader-text"><?php echo esc_html__('Roles that may keep the widgets\' tags', 'pulse-widgets'); ?></legend>
							<p><?php echo esc_html__('WordPress deletes tags it does not know, such as <top-pages>, from what a user without the "unfiltered_html" capability saves (Authors and Contributors; on a multisite network everyone but super admins), and still says the post was saved. The [pulse] shortcode and the pulse-widgets blocks always survive. To let a role write the tags themselves, tick it: its posts then keep the pulse-widgets elements and their attributes, and nothing else.', 'pulse-widgets'); ?></p>
							<?php foreach (wp_roles()->roles as $role => $details) : ?>
								<?php $unfiltered = !empty($details['capabilities']['unfiltered_html']); ?>
								<label>
									<input type="checkbox" name="<?php echo esc_attr(field('kses_roles')); ?>[]" value="<?php echo esc_attr($role); ?>" <?php checked(in_array($role, $settings['kses_roles'], true)); ?>>
									<?php echo esc_html(translate_user_role($details['name'])); ?>
									<?php if ($unfiltered) : ?>
										<span class="description"><?php echo esc_html__('(keeps every tag already on a single site)', 'pulse-widgets'); ?></span>
									<?php endif; ?>
								</label><br>
							<?php endforeach; ?>
						</fieldset>
					</td>
				</tr>
			</table>
			<?php submit_button(); ?>
		</form>
		<h2><?php echo esc_html__('Check', 'pulse-widgets'); ?></h2>
		<p><?php echo esc_html__('With the settings above, this counter shows the people on the site now. If it says the data cannot be reached, check the endpoint address and your proxy.', 'pulse-widgets'); ?></p>
		<?php
		$counter = render('live-counter', array());
		echo $counter !== '' ? $counter : '<p><em>' . esc_html__('Set a site ID above first.', 'pulse-widgets') . '</em></p>'; // phpcs:ignore WordPress.Security.EscapeOutput -- tag() escapes.
		?>
	</div>
	<?php
}
