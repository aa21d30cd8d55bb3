// Bundle every view (js/views/<view>/index.js) into src/glade/static/<view>.js as one ES
// module each (its CSS into <view>.css), and
// copy the scripts an offline HTML export inlines (require.js and the Jupyter widgets HTML
// manager) next to them.
import * as esbuild from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const outdir = path.join(here, "..", "src", "glade", "static");
const views = readdirSync(path.join(here, "views"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .filter((name) => existsSync(path.join(here, "views", name, "index.js")));
const options = {
  entryPoints: views.map((name) => ({ in: path.join(here, "views", name, "index.js"), out: name })),
  outdir,
  bundle: true,
  format: "esm",
  minify: true,
  target: ["es2020"],
  define: { "define.amd": "false" },
  logLevel: "info",
};

const require = createRequire(import.meta.url);
const vendored = {
  "requirejs.js": require.resolve("requirejs/require.js"),
  "widgets-embed-amd.js": require.resolve("@jupyter-widgets/html-manager/dist/embed-amd.js"),
};
mkdirSync(outdir, { recursive: true });
for (const [name, source] of Object.entries(vendored)) {
  copyFileSync(source, path.join(outdir, name));
}

if (process.argv.includes("--watch")) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  await esbuild.build(options);
}
