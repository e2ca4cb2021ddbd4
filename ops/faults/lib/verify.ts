// What a fault cost, read from the clients' records and from Postgres: acknowledged writes
// missing from the database (lost), writes stored twice (applied twice), the errors clients
// saw while the fault lasted, and how long until every guild answered again.
import { Effect, Redacted } from "effect"
import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlClient } from "effect/sql"
import type { Load, Sample } from "./load.ts"
import { type Sessions, silentlyLost } from "./sessions.ts"

export interface FaultFigures {
  readonly fault: string
  /** Requests that started while the fault lasted, and how they ended: status → count (0 refused, -1 no answer in time). */
  readonly duringFault: { readonly requests: number; readonly byStatus: Readonly<Record<string, number>> }
  /** Answers with status 500 or above other than 503, over the whole run. */
  readonly serverErrors: number
  /** Requests that got no answer within the client's timeout (longer than ACTOR_CALL_TIMEOUT_MS). */
  readonly hangs: number
  /** Seconds from the fault's end until every guild had answered a read and a write again. */
  readonly recoverySeconds: number
  readonly acknowledged: number
  readonly lost: number
  readonly appliedTwice: number
  /** Acknowledged messages a gateway session never got without being told it may have missed them. */
  readonly eventsLost: number
  /** Gateway sessions that RESUMEd, and that were told to IDENTIFY again. */
  readonly resumes: number
  readonly reidentifies: number
  /** Whether a process had to be restarted by hand (the test never does it: any that died is reported). */
  readonly restartedByHand: ReadonlyArray<string>
  readonly notes: ReadonlyArray<string>
  /** A scenario's own checks (its `afterwards`) that failed: any fails the run. */
  readonly failedChecks?: ReadonlyArray<string>
}

/** Every stored message whose content is one of `markers`' and how many rows it has. */
const storedCounts = (databaseUrl: string, markers: ReadonlyArray<string>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // In chunks: a long run's hundreds of thousands of markers as one IN list overflow the statement compiler's stack.
      const chunks = Array.from({ length: Math.ceil(markers.length / 5_000) }, (_, i) => markers.slice(i * 5_000, (i + 1) * 5_000))
      const rows = yield* Effect.forEach(chunks, (chunk) => sql<{ content: string; id: string; copies: number }>`
        SELECT content, min(id)::text AS id, count(*)::int AS copies FROM messages
        WHERE content IN ${sql.in(chunk)} GROUP BY content`)
      return new Map(rows.flat().map((r) => [r.content, r]))
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl) })), Effect.scoped)
  )

/** Seconds from `from` until every guild has had a successful read and a successful write that started after it. */
export const recoverySeconds = (samples: ReadonlyArray<Sample>, guilds: number, from: number) => {
  let worst = 0
  for (let guild = 0; guild < guilds; guild++) {
    const firstOk = (kind: Sample["kind"]) =>
      samples.filter((s) => s.guild === guild && s.kind === kind && s.at >= from && s.status >= 200 && s.status < 300)
        .reduce((first, s) => Math.min(first, s.at + s.ms), Number.POSITIVE_INFINITY)
    worst = Math.max(worst, firstOk("read"), firstOk("write"))
  }
  return Math.max(0, (worst - from) / 1000)
}

export const faultFigures = async (input: {
  readonly fault: string
  readonly load: Load
  readonly sessions: Sessions
  readonly guilds: number
  readonly databaseUrl: string
  readonly faultStart: number
  readonly faultEnd: number
  readonly restartedByHand?: ReadonlyArray<string>
  readonly notes?: ReadonlyArray<string>
}): Promise<FaultFigures> => {
  const { load } = input
  const markers = [...load.acknowledged.keys()]
  const stored = markers.length === 0 ? new Map() : await storedCounts(input.databaseUrl, markers)
  const lost = markers.filter((m) => !stored.has(m)).length
  const eventsLost = silentlyLost(input.sessions, load.acknowledged, input.faultStart)
  const appliedTwice = [...stored.values()].filter((r) => r.copies > 1).length + load.answeredTwice.length
  const during = load.samples.filter((s) => s.at >= input.faultStart && s.at < input.faultEnd)
  const byStatus: Record<string, number> = {}
  for (const s of during) byStatus[String(s.status)] = (byStatus[String(s.status)] ?? 0) + 1
  return {
    fault: input.fault,
    duringFault: { requests: during.length, byStatus },
    serverErrors: load.samples.filter((s) => s.status >= 500 && s.status !== 503).length,
    hangs: load.samples.filter((s) => s.status === -1).length,
    recoverySeconds: recoverySeconds(load.samples, input.guilds, input.faultEnd),
    acknowledged: markers.length,
    lost,
    appliedTwice,
    eventsLost: eventsLost.length,
    resumes: input.sessions.records.reduce((n, r) => n + r.resumes, 0),
    reidentifies: input.sessions.records.reduce((n, r) => n + r.reidentifies, 0),
    restartedByHand: input.restartedByHand ?? [],
    notes: [...input.notes ?? [], ...eventsLost]
  }
}

/** Whether the fault was survived: nothing lost or doubled, no 500, no hang, no hand restart, every guild back. */
export const survived = (f: FaultFigures) =>
  f.lost === 0 && f.appliedTwice === 0 && f.eventsLost === 0 && f.serverErrors === 0 && f.hangs === 0 &&
  f.restartedByHand.length === 0 && Number.isFinite(f.recoverySeconds) && (f.failedChecks ?? []).length === 0

/** One table of every fault's figures, as `npm run faults` prints it and the README shows it. */
export const faultTable = (rows: ReadonlyArray<FaultFigures>) => {
  const statuses = (f: FaultFigures) =>
    Object.entries(f.duringFault.byStatus).sort(([a], [b]) => Number(a) - Number(b))
      .map(([status, n]) => `${status === "0" ? "refused" : status === "-1" ? "hung" : status} ×${n}`).join(", ")
  const lines = [
    "| fault | requests during it | their answers | 500s | hangs | back after | acknowledged | lost | applied twice | " +
    "events lost (resumed, re-identified) | restarted by hand | survived |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|:---:|",
    ...rows.map((f) =>
      `| ${f.fault} | ${f.duringFault.requests} | ${statuses(f)} | ${f.serverErrors} | ${f.hangs} | ` +
      `${Number.isFinite(f.recoverySeconds) ? `${f.recoverySeconds.toFixed(1)} s` : "never"} | ${f.acknowledged} | ${f.lost} | ` +
      `${f.appliedTwice} | ${f.eventsLost} (${f.resumes}, ${f.reidentifies}) | ${f.restartedByHand.length === 0 ? "none" : f.restartedByHand.join(", ")} | ${survived(f) ? "yes" : "**no**"} |`
    )
  ]
  return lines.join("\n")
}
