/**
 * The editor side of the pulse-widgets blocks, plain JavaScript with WordPress's own packages (no
 * build step): one block per element from the definitions the server prints beside this file
 * (window.pulseWidgetsBlocks). The block's settings are in the sidebar; its preview is the
 * server's rendering of the block, the same tag as on the page, which the elements' bundle
 * (loaded in wp-admin) turns into live data.
 */
(function (wp, config) {
  'use strict';
  var el = wp.element.createElement;
  var InspectorControls = wp.blockEditor.InspectorControls;
  var useBlockProps = wp.blockEditor.useBlockProps;
  var components = wp.components;
  var ServerSideRender = wp.serverSideRender;

  /** The sidebar control of one field: a toggle, a select, or a text or number box. */
  function control(key, field, value, setAttributes) {
    var set = function (next) {
      var change = {};
      change[key] = next;
      setAttributes(change);
    };
    if (field.type === 'boolean') {
      return el(components.ToggleControl, {
        key: key,
        label: field.label,
        checked: Boolean(value),
        onChange: set,
      });
    }
    if (field.enum) {
      var options = [{ label: '—', value: '' }].concat(
        field.enum.map(function (option) {
          return { label: option, value: option };
        }),
      );
      return el(components.SelectControl, {
        key: key,
        label: field.label,
        value: value || '',
        options: options,
        onChange: function (next) {
          set(next === '' ? undefined : next);
        },
      });
    }
    if (field.type === 'integer') {
      return el(components.TextControl, {
        key: key,
        label: field.label,
        type: 'number',
        min: 0,
        value: value === undefined ? '' : String(value),
        onChange: function (next) {
          set(/^\d+$/.test(next) ? Number(next) : undefined);
        },
      });
    }
    return el(components.TextControl, {
      key: key,
      label: field.label,
      value: value || '',
      onChange: function (next) {
        set(next === '' ? undefined : next);
      },
    });
  }

  config.blocks.forEach(function (definition) {
    var attributes = {};
    Object.keys(definition.fields).forEach(function (key) {
      var field = definition.fields[key];
      attributes[key] = field.enum ? { type: field.type, enum: field.enum } : { type: field.type };
    });
    wp.blocks.registerBlockType(definition.name, {
      apiVersion: 2,
      title: definition.title,
      category: 'widgets',
      icon: 'chart-bar',
      attributes: attributes,
      supports: { html: false, align: ['wide', 'full'] },
      edit: function (props) {
        return el(
          'div',
          useBlockProps(),
          el(
            InspectorControls,
            null,
            el(
              components.PanelBody,
              { title: config.settings },
              Object.keys(definition.fields).map(function (key) {
                return control(key, definition.fields[key], props.attributes[key], props.setAttributes);
              }),
            ),
          ),
          el(ServerSideRender, { block: definition.name, attributes: props.attributes }),
        );
      },
      save: function () {
        return null;
      },
    });
  });
})(window.wp, window.pulseWidgetsBlocks);
