// bidi-js 1.1.0 is a CommonJS package (its main file sets `module.exports` to the factory) whose own
// declarations (src/bidi.d.ts) are written as an ES module with `export default`. Under "module": "nodenext"
// TypeScript reads that as a CommonJS `exports.default`, so the default import an ES module gets (the
// factory, which is what Node and Vite hand over) would be typed as the module object instead (TS2349). This
// declares the import as it is at run time, with the package's own types.
declare module 'bidi-js' {
  import type { Bidi } from 'bidi-js/src/bidi.js';

  function bidiFactory(): Bidi;
  export = bidiFactory;
}
