// The soak's verdicts from its recorded series, and the markdown table of them. Kept apart from
// the run so that a recorded soak-results.json can be judged again without running it again.
import type { FaultFigures } from "./lib/verify.ts"
import type { SoakPoint } from "./soak-chart.ts"

/** What the soak's ledger says at the end: the faults' figures of a run with no fault. */
export type SoakFaults = Pick<FaultFigures, "acknowledged" | "lost" | "appliedTwice" | "eventsLost" | "resumes" | "reidentifies" | "restartedByHand">

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
export const median = (values: ReadonlyArray<number>) => percentile([...values].sort((a, b) => a - b), 50)
export const latencies = (ms: ReadonlyArray<number>) => {
  const sorted = [...ms].sort((a, b) => a - b)
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }
}

export const RULE =
  "After the warm-up, split into thirds. Memory: median RSS of the last 3 samples under +10 % over the first 3 (the GC floor, " +
  "lowest RSS of the first and last third, is recorded beside it: the heap still settles for a few minutes after a 3-min warm-up). Open fds: median of the last 3 samples at most 5 above the first 3. Redis keys: median of the " +
  "last 3 at most max(5, 5 %) above the first 3. p99: the median of the last third's interval p99s at most 1.5 x the first third's. " +
  "Nothing acknowledged lost or applied twice, no gateway event missed, no 5xx but 503, no process restarted."

export const soakVerdicts = (points: ReadonlyArray<SoakPoint>, warmupMinutes: number, faults: SoakFaults) => {
  const steady = points.filter((p) => p.minute >= warmupMinutes)
  const third = Math.max(1, Math.floor(steady.length / 3))
  const first = steady.slice(0, third)
  const lastThird = steady.slice(-third)
  const ends = (pick: (p: SoakPoint) => number | undefined) => {
    const from = median(steady.slice(0, 3).map(pick).filter((v) => v !== undefined))
    const to = median(steady.slice(-3).map(pick).filter((v) => v !== undefined))
    return { from, to, growth: from === 0 ? 0 : (to - from) / from }
  }
  const floor = (pick: (p: SoakPoint) => number | undefined) => {
    const from = Math.min(...first.map(pick).filter((v) => v !== undefined))
    const to = Math.min(...lastThird.map(pick).filter((v) => v !== undefined))
    return { from, to, growth: from === 0 ? 0 : (to - from) / from }
  }
  const names = [...new Set(points.flatMap((p) => Object.keys(p.processes)))]
  const processes = names.map((name) => {
    const memoryFloor = floor((p) => p.processes[name]?.rssMb)
    const memoryEnds = ends((p) => p.processes[name]?.rssMb)
    const fds = ends((p) => p.processes[name]?.fds)
    return { name, memoryFloor, memoryEnds, fds, memoryOk: memoryEnds.growth < 0.1, fdsOk: fds.to - fds.from <= 5 }
  })
  const keys = ends((p) => p.redisKeys)
  const keysOk = keys.to - keys.from <= Math.max(5, keys.from * 0.05)
  const p99 = { firstThirdMs: median(first.map((p) => p.p99)), lastThirdMs: median(lastThird.map((p) => p.p99)) }
  const p99Ok = p99.lastThirdMs <= 1.5 * p99.firstThirdMs
  const requests = points.reduce((n, p) => n + p.requests, 0)
  const seconds = points.length === 0 ? 1 : (points.at(-1)?.minute ?? 1) * 60
  const load = {
    requests,
    rps: requests / seconds,
    serverErrors: points.reduce((n, p) => n + p.serverErrors, 0),
    hangs: points.reduce((n, p) => n + p.hangs, 0)
  }
  const faultsOk = faults.lost === 0 && faults.appliedTwice === 0 && faults.eventsLost === 0 && load.serverErrors === 0 &&
    faults.restartedByHand.length === 0
  const passed = processes.every((r) => r.memoryOk && r.fdsOk) && keysOk && p99Ok && faultsOk
  return { passed, rule: RULE, processes, redisKeys: { ...keys, ok: keysOk }, p99: { ...p99, ok: p99Ok }, load, faults: { ...faults, ok: faultsOk } }
}

export type SoakVerdicts = ReturnType<typeof soakVerdicts>

const signed = (n: number, digits = 0) => `${n >= 0 ? "+" : ""}${n.toFixed(digits)}`
const pct = (g: number) => `${signed(g * 100, 1)} %`
const ok = (b: boolean) => (b ? "ok" : "**FAIL**")

/** The verdicts as a markdown table. */
export const soakTable = (v: SoakVerdicts) => [
  `| figure | after warm-up | at the end | change | verdict |`,
  `|---|---|---|---|---|`,
  ...v.processes.flatMap((r) => [
    `| ${r.name} RSS, GC floor (min of a third) | ${r.memoryFloor.from.toFixed(0)} MB | ${r.memoryFloor.to.toFixed(0)} MB | ${pct(r.memoryFloor.growth)} | |`,
    `| ${r.name} RSS, median of 3 samples | ${r.memoryEnds.from.toFixed(0)} MB | ${r.memoryEnds.to.toFixed(0)} MB | ${pct(r.memoryEnds.growth)} | ${ok(r.memoryOk)} |`,
    `| ${r.name} open fds | ${r.fds.from} | ${r.fds.to} | ${signed(r.fds.to - r.fds.from)} | ${ok(r.fdsOk)} |`
  ]),
  `| Redis keys | ${v.redisKeys.from} | ${v.redisKeys.to} | ${signed(v.redisKeys.to - v.redisKeys.from)} | ${ok(v.redisKeys.ok)} |`,
  `| p99 (median of a third's 10-s p99s) | ${v.p99.firstThirdMs} ms | ${v.p99.lastThirdMs} ms | ×${(v.p99.lastThirdMs / Math.max(1, v.p99.firstThirdMs)).toFixed(2)} | ${ok(v.p99.ok)} |`,
  `| requests | ${v.load.requests} in all | ${v.load.rps.toFixed(0)} req/s | | |`,
  `| lost / doubled / events lost | ${v.faults.lost} / ${v.faults.appliedTwice} / ${v.faults.eventsLost} | of ${v.faults.acknowledged} acknowledged writes | | ${ok(v.faults.ok)} |`,
  `| 5xx but 503 / client timeouts / restarted | ${v.load.serverErrors} / ${v.load.hangs} / ${v.faults.restartedByHand.length} | | | |`
].join("\n")
