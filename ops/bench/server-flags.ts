// The Node flags the server runs with: those of package.json's start script, so that the
// benchmarks measure the server as `npm start` runs it.
import { readFileSync } from "node:fs"
import { join } from "node:path"

/** The `--flags` of package.json's `start` script, in order (`node --a --b src/main.ts` gives `--a --b`). */
export const serverNodeFlags = (root: string): ReadonlyArray<string> => {
  const manifest: unknown = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  const start = typeof manifest === "object" && manifest !== null && "scripts" in manifest &&
      typeof manifest.scripts === "object" && manifest.scripts !== null && "start" in manifest.scripts
    ? manifest.scripts.start
    : undefined
  if (typeof start !== "string") throw new Error("package.json has no start script")
  return start.split(/\s+/).filter((token) => token.startsWith("--"))
}
