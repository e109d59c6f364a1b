/**
 * The elements for the block editor's canvas, which may be a frame of its own: WordPress 6.1
 * copies the blocks' scripts into the Site Editor's frame as classic scripts, without their
 * type="module". This classic script imports the modules named in its own address (the full
 * bundle and the language file, at the addresses of wp-admin's module tags, so a document that
 * has both runs each once), from this script's own site only.
 */
(function (script) {
  'use strict';
  // Compared with this script's own origin: the frame's location is about:blank.
  var self = new URL(script.src);
  (self.searchParams.get('modules') || '')
    .split(' ')
    .filter(Boolean)
    .forEach(function (address) {
      var url = new URL(address, self);
      if (url.origin === self.origin) {
        import(url.href);
      }
    });
})(document.currentScript);
