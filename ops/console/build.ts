// `npm run build:console`: bundles the operators' console (src/admin/console/web) with
// esbuild into dist/console/ (git-ignored): `index.html` and `assets/app-<hash>.js|css`.
// The hash is of the content, so the server can let browsers keep an asset for a year;
// the HTML names the current ones and is never cached. The output is written to a
// staging folder first and then swapped in, so a running server never reads half a build.
// `--optional` (npm start's prestart): where the dev dependencies are not installed (a
// production install), keep the build there is, or go on without a console (it answers 503).
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { basename, join, resolve } from "node:path"
import { CONSOLE_ASSETS_PATH, CONSOLE_DIR } from "../../src/admin/console/Bundle.ts"

const root = resolve(import.meta.dirname, "..", "..")
const source = join(root, "src", "admin", "console", "web")
const staging = `${CONSOLE_DIR}.staging-${process.pid}`

const esbuild = await import("esbuild").catch(() => undefined)
if (esbuild === undefined) {
  const why = "build:console: esbuild is not installed (a dev dependency: run `npm ci` with dev dependencies)"
  if (!process.argv.includes("--optional")) throw new Error(why)
  console.warn(`${why}; ${existsSync(CONSOLE_DIR) ? "keeping the existing build" : "the console answers 503 until it is built"}`)
  process.exit(0)
}

rmSync(staging, { recursive: true, force: true })
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: [join(source, "main.tsx")],
  tsconfig: join(source, "tsconfig.json"),
  bundle: true,
  minify: true,
  format: "esm",
  platform: "browser",
  target: ["es2022", "chrome110", "firefox110", "safari16"],
  jsx: "automatic",
  jsxImportSource: "preact",
  entryNames: "app-[hash]",
  outdir: join(staging, "assets"),
  metafile: true,
  legalComments: "none",
  logLevel: "warning"
})

const outputs = Object.keys(result.metafile.outputs).map((path) => resolve(root, path))
const named = (extension: string) => {
  const found = outputs.filter((path) => path.endsWith(extension))
  if (found.length !== 1) throw new Error(`build:console: expected one ${extension} output, found ${found.length}`)
  return found[0] ?? ""
}
const script = named(".js")
const style = named(".css")
/** Subresource integrity: the browser refuses an asset whose bytes are not the built ones. */
const integrity = (path: string) => `sha384-${createHash("sha384").update(readFileSync(path)).digest("base64")}`

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Guildhall · Operators' console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_ASSETS_PATH}/${basename(style)}" integrity="${integrity(style)}">
<script type="module" src="${CONSOLE_ASSETS_PATH}/${basename(script)}" integrity="${integrity(script)}"></script>
</head>
<body>
<div id="console"></div>
<noscript>The operators' console needs JavaScript.</noscript>
</body>
</html>
`
writeFileSync(join(staging, "index.html"), html)

mkdirSync(join(CONSOLE_DIR, ".."), { recursive: true })
const previous = `${CONSOLE_DIR}.previous-${process.pid}`
try {
  renameSync(CONSOLE_DIR, previous)
} catch {
  // No earlier build.
}
renameSync(staging, CONSOLE_DIR)
rmSync(previous, { recursive: true, force: true })
console.log(`build:console: ${basename(script)}, ${basename(style)} in ${CONSOLE_DIR}`)
