import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import ts from "typescript"

/**
 * The architecture as a rule on imports (README, Architecture): HTTP and the
 * domain folders above the actor client, the actors (`shards/`) below them,
 * and the model and the platform at the floor. Each layer uses only those
 * below it, so an import that points up fails here.
 */
const root = Path.resolve(import.meta.dirname, "..")

const sourceFiles = (dir: string): Array<string> =>
  Fs.readdirSync(Path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = Path.posix.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

/** The project files one file imports (packages left out), as paths from the root. */
const importsOf = (file: string): Array<string> =>
  ts.preProcessFile(Fs.readFileSync(Path.join(root, file), "utf8"), true, true).importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => Path.posix.normalize(Path.posix.join(Path.posix.dirname(file), name)))

const within = (path: string, folders: ReadonlyArray<string>) => folders.some((folder) => path.startsWith(`${folder}/`))

/** Each layer's files, and the folders they may import from (their own included). */
const rules = [
  { layer: "src/model", mayImport: ["src/model"] },
  { layer: "src/platform", mayImport: ["src/platform", "src/model"] },
  { layer: "shards", mayImport: ["shards", "src/model", "src/platform"] }
] as const

describe("layers", () => {
  for (const { layer, mayImport } of rules) {
    it(`${layer} imports only ${mayImport.join(", ")}`, () => {
      const files = sourceFiles(layer)
      assert.isAbove(files.length, 0, `no files found under ${layer}`)
      const upward = files.flatMap((file) =>
        importsOf(file).filter((target) => !within(target, mayImport)).map((target) => `${file} imports ${target}`))
      assert.deepStrictEqual(upward, [])
    })
  }

  it("the check sees an upward import", () => {
    const upward = importsOf("src/App.ts").filter((target) => !within(target, ["shards", "src/model", "src/platform"]))
    assert.isAbove(upward.length, 0)
  })
})
