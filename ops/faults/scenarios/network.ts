// The network between the API process and the shard processes cut: a proxy stands in front of
// every shard's peer port (the shard advertises the proxy's port, so API and peers both go
// through it) and is switched to `drop` (connections reset, new ones refused) or `stall` (open
// but nothing forwarded: a black hole, the case nothing tells the sender about) for a while.
import { setTimeout as sleep } from "node:timers/promises"
import { type ProxyMode, type TcpProxy, tcpProxy } from "../lib/proxy.ts"
import { ACTOR_CALL_TIMEOUT_MS, type FaultScenario } from "../lib/scenario.ts"

/** What a write sent during the cut was answered, as a client sees it. */
const probeWrite = async (base: string, token: string, channelId: string, nonce: string) => {
  const start = Date.now()
  const reply = await fetch(`${base}/channels/${channelId}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: token },
    body: JSON.stringify({ content: `probe ${nonce}`, nonce, enforce_nonce: true }),
    signal: AbortSignal.timeout(ACTOR_CALL_TIMEOUT_MS * 2)
  })
  const body: unknown = await reply.json().catch(() => undefined)
  const field = (key: string) => typeof body === "object" && body !== null ? String(Reflect.get(body, key)) : ""
  return { status: reply.status, ms: Date.now() - start, code: field("code"), message: field("message"), id: field("id") }
}

/** A scenario whose shards sit behind proxies, cut with `mode` for `cutMs`, then healed. */
export const networkCut = (name: string, mode: Exclude<ProxyMode, "pass">, cutMs: number): FaultScenario => {
  const proxies: Array<TcpProxy> = []
  const problems: Array<string> = []
  return {
    name,
    shardEnv: async (_index, shardPort) => {
      const proxy = await tcpProxy(shardPort)
      proxies.push(proxy)
      return { SHARD_ADVERTISE_PORT: String(proxy.port) }
    },
    inject: async (world) => {
      const guild = world.guilds[0]
      const base = world.cluster.apis[0]?.base ?? ""
      if (guild === undefined) throw new Error("no guild")
      const nonce = `probe-${Date.now()}`
      const healed = Date.now() + cutMs
      for (const proxy of proxies) proxy.setMode(mode)
      // A write during the cut must end within the actor call bound, as 503 saying its outcome is unknown.
      const during = await probeWrite(base, guild.token, guild.channelId, nonce)
      if (during.status !== 503 || during.code !== "SERVICE_UNAVAILABLE" || !during.message.includes("outcome is unknown")) {
        problems.push(`write during the cut: ${during.status} ${during.code} "${during.message}"`)
      }
      if (during.ms > ACTOR_CALL_TIMEOUT_MS + 1_000) problems.push(`write during the cut took ${during.ms} ms`)
      await sleep(Math.max(0, healed - Date.now()))
      for (const proxy of proxies) proxy.setMode("pass")
      // The same write retried with its nonce once healed: answered, and stored once (checked afterwards).
      let after = await probeWrite(base, guild.token, guild.channelId, nonce).catch(() => undefined)
      for (let i = 0; i < 40 && after?.status !== 200; i++) {
        await sleep(250)
        after = await probeWrite(base, guild.token, guild.channelId, nonce).catch(() => undefined)
      }
      if (after?.status !== 200) problems.push(`the probe's retry after the cut: ${after?.status}`)
      return [`${mode} ${cutMs / 1000} s`, `a write during it: ${during.status} ${during.code} in ${during.ms} ms`]
    },
    afterwards: async (world, figures) => {
      await Promise.all(proxies.splice(0).map((p) => p.close()))
      // Every request that started during the cut ended within the bound (and a margin for the HTTP round trip).
      const slow = world.load.samples.filter((s) => s.ms > ACTOR_CALL_TIMEOUT_MS + 1_000)
      if (slow.length > 0) problems.push(`${slow.length} requests took longer than ${ACTOR_CALL_TIMEOUT_MS + 1_000} ms`)
      const uncoded = world.load.samples.filter((s) => s.status === 503 && s.code !== "SERVICE_UNAVAILABLE")
      if (uncoded.length > 0) problems.push(`${uncoded.length} 503s without SERVICE_UNAVAILABLE`)
      const longest = world.load.samples.reduce((m, s) => Math.max(m, s.ms), 0)
      return {
        ...figures,
        // A problem counts as a server error: the scenario is not survived.
        serverErrors: figures.serverErrors + problems.length,
        notes: [...figures.notes, `longest request ${longest} ms`, ...problems]
      }
    }
  }
}

export const networkScenarios: ReadonlyArray<FaultScenario> = [
  /** Every shard's peer port refuses and resets connections for 10 s. */
  networkCut("network drop 10 s", "drop", 10_000),
  /** Every shard's peer port is a black hole for 10 s: connections stay open, nothing arrives until it heals. */
  networkCut("network stall 10 s", "stall", 10_000)
]
