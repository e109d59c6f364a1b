<?php
/**
 * Sets up the throwaway WordPress site of test/wordpress.node.test.ts with WordPress's own
 * functions, as wp-cli would (Debian 12 has no wp-cli package). Run by the PHP CLI with the site's
 * environment (WORDPRESS_CONFIG, PULSE_WP_DIR, HTTP_HOST) and one JSON argument, a list of steps;
 * prints one JSON list, a result per step.
 *
 *   install  {url, title, user, password, email}     wp_install(), then siteurl/home = url
 *   user     {login, password, role}                 a user; result: its ID
 *   plugin   {zip, file}                             unzip_file() into the plugins folder, activate
 *   option   {name, value}                           update_option()
 *   post     {author, title, content}                a published post as that user; result: {id, link}
 *   template {theme, slug, content}                  a block theme's template as the Site Editor saves it
 *   call     {function, args}                        a function of WordPress or an active plugin; result: what it returns
 *   output   {function, args}                        the same; result: what it prints
 *   pattern  {name}                                  a registered block pattern, rendered as on a page
 */

$steps = json_decode($argv[1] ?? '[]', true);
$installing = ($steps[0]['do'] ?? '') === 'install';
if ($installing) {
	define('WP_INSTALLING', true);
}
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/file.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';

$results = array();
foreach ($steps as $step) {
	switch ($step['do']) {
		case 'install':
			$installed = wp_install($step['title'], $step['user'], $step['email'], false, '', wp_slash($step['password']));
			update_option('siteurl', $step['url']);
			update_option('home', $step['url']);
			$results[] = $installed['user_id'];
			break;
		case 'user':
			$id = wp_insert_user(array('user_login' => $step['login'], 'user_pass' => $step['password'], 'user_email' => $step['login'] . '@example.com', 'role' => $step['role']));
			if (is_wp_error($id)) {
				fwrite(STDERR, $id->get_error_message());
				exit(1);
			}
			$results[] = $id;
			break;
		case 'plugin':
			WP_Filesystem();
			$unzipped = unzip_file($step['zip'], WP_PLUGIN_DIR);
			$activated = is_wp_error($unzipped) ? $unzipped : activate_plugin($step['file']);
			if (is_wp_error($activated)) {
				fwrite(STDERR, $activated->get_error_message());
				exit(1);
			}
			$results[] = true;
			break;
		case 'option':
			$results[] = update_option($step['name'], $step['value']);
			break;
		case 'post':
			wp_set_current_user(get_user_by('login', $step['author'])->ID);
			$id = wp_insert_post(wp_slash(array('post_title' => $step['title'], 'post_content' => $step['content'], 'post_status' => 'publish')), true);
			if (is_wp_error($id)) {
				fwrite(STDERR, $id->get_error_message());
				exit(1);
			}
			$results[] = array('id' => $id, 'link' => get_permalink($id));
			break;
		case 'template':
			$id = wp_insert_post(array('post_type' => 'wp_template', 'post_name' => $step['slug'], 'post_title' => $step['slug'], 'post_status' => 'publish', 'post_content' => wp_slash($step['content'])), true);
			$results[] = is_wp_error($id) ? $id->get_error_message() : wp_set_post_terms($id, $step['theme'], 'wp_theme');
			break;
		case 'call':
			$results[] = call_user_func_array($step['function'], $step['args']);
			break;
		case 'output':
			ob_start();
			call_user_func_array($step['function'], $step['args']);
			$results[] = ob_get_clean();
			break;
		case 'pattern':
			$results[] = do_blocks(WP_Block_Patterns_Registry::get_instance()->get_registered($step['name'])['content']);
			break;
		default:
			fwrite(STDERR, 'unknown step ' . json_encode($step));
			exit(1);
	}
}
echo json_encode($results);
