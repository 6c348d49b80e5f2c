// esbuild build of the CEL editor bundle (see build.sh). One source patch, checked: CodeMirror
// sets `tab-size` through the content element's style attribute, which the page's CSP blocks
// (style-src 'self'); the theme sets tab-size instead.
import { build } from "esbuild";
import { readFile } from "node:fs/promises";

const TAB_SIZE_ATTR = "style: `${browser.tabSize}: ${this.state.tabSize}`,";

const cspPatch = {
  name: "csp-patch",
  setup(b) {
    b.onLoad({ filter: /@codemirror[\\/]view[\\/]dist[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!source.includes(TAB_SIZE_ATTR)) throw new Error("CodeMirror changed: tab-size patch no longer applies");
      return { contents: source.replace(TAB_SIZE_ATTR, ""), loader: "js" };
    });
  },
};

await build({
  entryPoints: ["cel-codemirror.js"],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  legalComments: "eof",
  outfile: process.argv[2],
  plugins: [cspPatch],
});
