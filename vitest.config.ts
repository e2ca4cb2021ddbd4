import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defineConfig } from "vitest/config"
import { CHECKED_LOG_VARIABLE } from "./test/support/ResponseShapesLog.ts"
import { ResponseShapesReporter } from "./test/support/ResponseShapesReporter.ts"

// The engine's native parts crash on the machine's older Node: npm scripts and npx put
// node_modules/.bin (Node 24, the `node` dependency) first on the PATH; a bare call may not.
if (Number(process.versions.node.split(".")[0]) < 24) {
  throw new Error(`vitest is running on Node ${process.version}: run it through npm (npm test, or npx vitest run FILE) so that Node 24 is used`)
}

// Every test's 2xx answers are checked against the reference; the operations checked are
// written to this file (a temporary one unless given), and a full run fails if a built
// endpoint was never checked.
const givenLog = process.env[CHECKED_LOG_VARIABLE]
const checkedLog = givenLog ?? join(mkdtempSync(join(tmpdir(), "guildhall-shapes-")), "checked.txt")

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    env: { [CHECKED_LOG_VARIABLE]: checkedLog },
    // Cluster tests start real processes (shards, API) and wait for them.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // One test file at a time: the machine has 2 cores and every file shares the one
    // Postgres (database `test`) and Redis that ops/ensure-services.sh makes sure of.
    fileParallelism: false,
    // Named explicitly so that the output ends with vitest's usual summary
    // (Test Files / Tests / Duration) wherever it runs.
    reporters: ["default", new ResponseShapesReporter(checkedLog, givenLog === undefined)]
  }
})
