// Two servers measured side by side on one target: after a warm-up of each, their measured
// seconds are cut into short slices taken in turn, A-B-B-A and so on, so that whatever the
// shared machine does over a round (another process waking, the CPU's clock) weighs on both
// alike. Each side's throughput is its requests over its seconds in all its slices.
import { setTimeout as sleep } from "node:timers/promises"
import autocannon from "autocannon"
import { cpuMs } from "./proc.ts"

/** What one side of a pair did in a round. */
export interface Throughput {
  readonly requestsPerSecond: number
  readonly latencyP99Ms: number
  readonly failures: number
  /** The side's processes' CPU time (user + system) per request, in microseconds. */
  readonly cpuMicrosPerRequest: number
}

/** One side: where to send the target's requests, and the processes whose CPU it spends. */
export interface Side {
  readonly request: Omit<autocannon.Options, "connections" | "duration" | "timeout">
  readonly pids: ReadonlyArray<number>
}

export interface PairLoad {
  readonly seconds: number
  readonly warmupSeconds: number
  readonly connections: number
}

/** Seconds of one slice: short, so that the machine's noise lands on both sides. */
const SLICE_SECONDS = 2

const cpuOf = (pids: ReadonlyArray<number>) => pids.reduce((n, pid) => n + cpuMs(pid), 0)

const slice = async (side: Side, load: PairLoad, seconds = SLICE_SECONDS) => {
  const cpuBefore = cpuOf(side.pids)
  const result = await autocannon({ ...side.request, connections: load.connections, timeout: 10, duration: seconds })
  return {
    requests: result.requests.total ?? result["2xx"] + result.non2xx,
    seconds: result.duration,
    cpu: cpuOf(side.pids) - cpuBefore,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts
  }
}

type Slice = Awaited<ReturnType<typeof slice>>

export const median = (values: ReadonlyArray<number>): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

const total = (list: ReadonlyArray<Slice>): Throughput => {
  const requests = list.reduce((n, s) => n + s.requests, 0)
  return {
    requestsPerSecond: requests / Math.max(1e-9, list.reduce((n, s) => n + s.seconds, 0)),
    latencyP99Ms: median(list.map((s) => s.p99)),
    failures: list.reduce((n, s) => n + s.failures, 0),
    cpuMicrosPerRequest: (list.reduce((n, s) => n + s.cpu, 0) * 1000) / Math.max(1, requests)
  }
}

/** One round of a target on both sides; `aFirst` alternates between rounds. */
export const pairedRound = async (a: Side, b: Side, load: PairLoad, aFirst: boolean) => {
  for (const side of [a, b]) {
    if (load.warmupSeconds > 0) {
      await autocannon({ ...side.request, connections: load.connections, timeout: 10, duration: load.warmupSeconds })
    }
  }
  const slices = Math.max(2, Math.round(load.seconds / SLICE_SECONDS))
  const taken: { a: Array<Slice>; b: Array<Slice> } = { a: [], b: [] }
  for (let i = 0; i < slices * 2; i++) {
    // ABBA: turn 0 the first side, 1 and 2 the second, 3 and 4 the first...
    const firstsTurn = Math.floor((i + 1) / 2) % 2 === 0
    const which = firstsTurn === aFirst ? "a" : "b"
    taken[which].push(await slice(which === "a" ? a : b, load))
  }
  await sleep(1_000)
  return { a: total(taken.a), b: total(taken.b) }
}

/** One slice of `seconds` on each side, both at once. */
const bothAtOnce = (a: Side, b: Side, load: PairLoad, seconds: number) => Promise.all([a, b].map((side) => slice(side, load, seconds)))

/** Loads both sides at once for `seconds`, measuring nothing: a warm-up. */
export const loadBoth = async (a: Side, b: Side, load: PairLoad, seconds: number): Promise<void> => {
  await bothAtOnce(a, b, load, seconds)
}

/**
 * One round of a target on both sides at once, each under its own `load.connections`: the host's
 * changing speed then weighs on both in every instant. The two share the load generator, so a
 * costlier side spends more CPU to keep pace rather than answering less: compare their CPU time
 * per request, not their requests/s.
 */
export const sideBySideRound = async (a: Side, b: Side, load: PairLoad) => {
  if (load.warmupSeconds > 0) await loadBoth(a, b, load, load.warmupSeconds)
  const [first, second] = await bothAtOnce(a, b, load, load.seconds)
  await sleep(1_000)
  if (first === undefined || second === undefined) throw new Error("a side was not measured")
  return { a: total([first]), b: total([second]) }
}
