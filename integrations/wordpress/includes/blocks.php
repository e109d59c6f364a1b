<?php
/**
 * One dynamic block per element (`pulse-widgets/top-pages`, …): the server writes the tag, as for
 * the shortcode, and the editor shows that same markup live (blocks/editor.js, ServerSideRender,
 * with the full bundle loaded by blocks/frame.js in the editor's document and the Site Editor's
 * frame). Plus a "Most read" pattern for block themes' sidebars and footers.
 */

namespace PulseWidgets;

if (!defined('ABSPATH')) {
	exit;
}

const EDITOR_HANDLE = 'pulse-widgets-editor';
const FRAME_HANDLE = 'pulse-widgets-frame';

/** blocks/frame.js, naming the modules it imports: wp-admin's, at the addresses WordPress prints. */
function frame_loader_url(): string {
	$modules = array_map(function (string $handle): string {
		$script = wp_scripts()->registered[$handle];
		return add_query_arg('ver', $script->ver, $script->src);
	}, admin_handles());
	return add_query_arg('modules', rawurlencode(implode(' ', $modules)), plugins_url('blocks/frame.js', PLUGIN_FILE));
}

/** The block attribute schema and the editor's label of each setting an element takes. */
function block_fields(array $spec): array {
	$fields = array(
		'host' => array('type' => 'string', 'label' => __('Site ID (empty: the default)', 'pulse-widgets')),
		'label' => array('type' => 'string', 'label' => __('Heading', 'pulse-widgets')),
		'no-heading' => array('type' => 'boolean', 'label' => __('Hide the heading', 'pulse-widgets')),
		'theme' => array('type' => 'string', 'enum' => THEMES, 'label' => __('Theme (empty: the default)', 'pulse-widgets')),
	);
	foreach ($spec['query'] + $spec['attributes'] as $key => $type) {
		$field = array('label' => $key);
		if (is_array($type)) {
			$field += array('type' => 'string', 'enum' => $type);
		} else {
			$field['type'] = array('number' => 'integer', 'boolean' => 'boolean')[$type] ?? 'string';
		}
		$fields[$key] = $field;
	}
	return $fields;
}

/** What blocks/editor.js registers: each block's name, title and fields. */
function block_definitions(): array {
	$definitions = array();
	foreach (elements() as $name => $spec) {
		$definitions[] = array('name' => 'pulse-widgets/' . $name, 'title' => $spec['title'], 'fields' => block_fields($spec));
	}
	return $definitions;
}

add_action('init', function (): void {
	wp_register_script(
		EDITOR_HANDLE,
		plugins_url('blocks/editor.js', PLUGIN_FILE),
		array('wp-blocks', 'wp-element', 'wp-components', 'wp-block-editor', 'wp-server-side-render'),
		VERSION,
		true
	);
	wp_register_script(FRAME_HANDLE, frame_loader_url(), array(), VERSION, false);
	wp_add_inline_script(EDITOR_HANDLE, 'window.pulseWidgetsBlocks = ' . wp_json_encode(array(
		'blocks' => block_definitions(),
		'settings' => __('Settings', 'pulse-widgets'),
	)) . ';', 'before');

	foreach (elements() as $name => $spec) {
		$attributes = array();
		foreach (block_fields($spec) as $key => $field) {
			$attributes[$key] = array_intersect_key($field, array('type' => true, 'enum' => true));
		}
		register_block_type('pulse-widgets/' . $name, array(
			'api_version' => 2,
			'title' => $spec['title'],
			'category' => 'widgets',
			'icon' => 'chart-bar',
			'attributes' => $attributes,
			'supports' => array('html' => false, 'align' => array('wide', 'full')),
			'editor_script_handles' => array(EDITOR_HANDLE),
			// In wp-admin the block's script loads the full bundle, in the editor's document and in
			// the Site Editor's frame alike. Public pages load the element's own file from render().
			'script_handles' => is_admin() ? array(FRAME_HANDLE) : array(),
			'render_callback' => function (array $attributes) use ($name): string {
				$html = render($name, $attributes);
				return $html === '' ? '' : '<div ' . get_block_wrapper_attributes() . '>' . $html . '</div>';
			},
		));
	}

	register_block_pattern('pulse-widgets/most-read', array(
		'title' => __('Most read now (live)', 'pulse-widgets'),
		'description' => __('The five pages most read right now, without numbers: for a sidebar or a footer.', 'pulse-widgets'),
		'categories' => array('widgets'),
		'content' => '<!-- wp:pulse-widgets/top-pages ' . wp_json_encode(array(
			'label' => __('Most read now', 'pulse-widgets'),
			'limit' => 5,
			'articles-only' => true,
			'hide-numbers' => true,
		)) . ' /-->',
	));
}, 20);
