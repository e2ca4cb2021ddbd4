import { readdirSync, readFileSync } from "node:fs"
import { extname, join, resolve } from "node:path"

/** Where `npm run build:console` (ops/console/build.ts) writes the console, and the server reads it. */
export const CONSOLE_DIR = resolve(import.meta.dirname, "..", "..", "..", "dist", "console")

export const CONSOLE_PATH = "/admin/console"
export const CONSOLE_ASSETS_PATH = `${CONSOLE_PATH}/assets`

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2"
}

export interface ConsoleAsset {
  readonly body: Uint8Array
  readonly contentType: string
}

/** The built page and its hashed assets, by file name. */
export interface ConsoleBundle {
  readonly html: Uint8Array
  readonly assets: ReadonlyMap<string, ConsoleAsset>
}

/**
 * Reads a build of the console into memory (a few tens of kilobytes), or
 * undefined when there is none: the files never change while it runs, since a
 * new build has new names.
 */
export const readBundle = (dir: string): ConsoleBundle | undefined => {
  try {
    const html = readFileSync(join(dir, "index.html"))
    const assets = new Map<string, ConsoleAsset>()
    for (const name of readdirSync(join(dir, "assets"))) {
      const contentType = CONTENT_TYPES[extname(name)]
      if (contentType !== undefined) assets.set(name, { body: readFileSync(join(dir, "assets", name)), contentType })
    }
    return { html, assets }
  } catch {
    return undefined
  }
}
