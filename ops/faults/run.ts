// `npm run faults`: every fault of the suite, one after another, each on its own Redis,
// Postgres and cluster (ops/faults/lib/), then one table of what each cost. FAULTS=redis,pause
// runs only those groups. Exits non-zero when a fault was not survived.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { FaultScenario } from "./lib/scenario.ts"
import { runScenario } from "./lib/scenario.ts"
import { type FaultFigures, faultTable, survived } from "./lib/verify.ts"
import { apiKillScenarios } from "./scenarios/apikill.ts"
import { mediaScenarios } from "./scenarios/media.ts"
import { networkScenarios } from "./scenarios/network.ts"
import { pauseScenarios } from "./scenarios/pause.ts"
import { postgresScenarios } from "./scenarios/postgres.ts"
import { redisScenarios } from "./scenarios/redis.ts"

const groups: ReadonlyArray<readonly [string, ReadonlyArray<FaultScenario>]> = [
  ["redis", redisScenarios],
  ["postgres", postgresScenarios],
  ["network", networkScenarios],
  ["pause", pauseScenarios],
  ["apikill", apiKillScenarios],
  ["media", mediaScenarios]
]

const chosen = process.env["FAULTS"]?.split(",").map((g) => g.trim()).filter((g) => g !== "")
const unknown = chosen?.filter((g) => !groups.some(([name]) => name === g)) ?? []
if (unknown.length > 0) throw new Error(`FAULTS names unknown groups: ${unknown.join(", ")} (known: ${groups.map(([n]) => n).join(", ")})`)

const rows: Array<FaultFigures> = []
for (const [group, scenarios] of groups) {
  if (chosen !== undefined && !chosen.includes(group)) continue
  for (const scenario of scenarios) {
    process.stdout.write(`faults: ${scenario.name}\n`)
    const figures = await runScenario(scenario)
    rows.push(figures)
    process.stdout.write(`${faultTable([figures]).split("\n").at(-1)}\n`)
    for (const note of figures.notes) process.stdout.write(`  ${note}\n`)
  }
}
process.stdout.write(`\n${faultTable(rows)}\n`)
writeFileSync(join(import.meta.dirname, "results.json"), `${JSON.stringify(rows, null, 1)}\n`)
if (!rows.every(survived)) process.exitCode = 1
