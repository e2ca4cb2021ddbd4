import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    // Cluster tests start real processes (shards, API) and wait for them.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // One test file at a time: the machine has 2 cores and every file shares the one
    // Postgres (database `test`) and Redis that ops/ensure-services.sh makes sure of.
    fileParallelism: false,
    // Named explicitly so that the output ends with vitest's usual summary
    // (Test Files / Tests / Duration) wherever it runs.
    reporters: ["default"]
  }
})
