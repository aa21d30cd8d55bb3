// Bundle every view module in js/ into src/glade/static/ as one ES module each.
import * as esbuild from "esbuild";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const views = readdirSync(path.join(here, "views")).filter((f) => f.endsWith(".js"));
const options = {
  entryPoints: views.map((f) => path.join(here, "views", f)),
  outdir: path.join(here, "..", "src", "glade", "static"),
  bundle: true,
  format: "esm",
  minify: true,
  target: ["es2020"],
  define: { "define.amd": "false" },
  logLevel: "info",
};

if (process.argv.includes("--watch")) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  await esbuild.build(options);
}
