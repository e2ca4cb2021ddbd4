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

// The fault tests judge recovery against time bounds with processes paused, killed and
// restarted under a load of their own: they run after everything else, one at a time, with
// the machine to themselves, so that their bounds measure the fault and not a neighbour.
const ALONE = ["test/faults/**/*.test.ts"]

export default defineConfig({
  test: {
    environment: "node",
    env: { [CHECKED_LOG_VARIABLE]: checkedLog },
    // Cluster tests start real processes (shards, API) and wait for them.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: "api",
          include: ["test/**/*.test.ts"],
          exclude: ALONE,
          // Two files at a time, one per core: most of a file's time is waiting on the servers
          // and processes it started. Each file has its own scratch database (test/support/Postgres.ts),
          // Redis key prefix (test/support/Cluster.ts) and ports, so two never meet.
          fileParallelism: true,
          maxWorkers: 2,
          // A worker takes file after file: the application's modules load once per worker,
          // not once per file (a tenth of the run). Nothing of ours keeps state in a module
          // that a test changes; servers, databases and key prefixes are each file's own.
          isolate: false,
          sequence: { groupOrder: 0 }
        }
      },
      {
        extends: true,
        test: { name: "faults", include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } }
      }
    ],
    // Named explicitly so that the output ends with vitest's usual summary
    // (Test Files / Tests / Duration) wherever it runs.
    reporters: ["default", new ResponseShapesReporter(checkedLog, givenLog === undefined)]
  }
})
