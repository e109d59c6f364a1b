/** The analyzer's output, imported by the preview for controls and autodocs. */
declare module '*/custom-elements.json' {
  const manifest: object;
  export default manifest;
}
