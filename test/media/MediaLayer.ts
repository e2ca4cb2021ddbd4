import { afterAll, layer } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { TestApi } from "../support/Api.ts"

/** The test API with its media store in a fresh folder, removed once the file's tests are done. */
export const layerWithMedia = (name: string) => {
  const dataDir = mkdtempSync(join(tmpdir(), `guildhall-${name}-`))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
  return layer(TestApi.layerWith({ DATA_DIR: dataDir }), { timeout: 120_000, excludeTestServices: true })
}
