import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks"
import type { Failure } from "./api.ts"
import { clock } from "./format.ts"
import type { Action, Live, PanelProps, Sample } from "./panel.ts"
import { panels } from "./panels.tsx"
import { GatewayStats } from "./schemas.ts"
import type { Operator } from "./SignIn.tsx"
import { Confirm } from "./ui/Confirm.tsx"

/** How often the page asks `/admin/gateway/stats` (each process publishes its figures every 2 s). */
const POLL_MS = 3000
/** How far back the charts go. */
const HISTORY_MS = 10 * 60_000
const TOAST_MS = 8000
const STATS_ACL = "gateway:memory_stats"

interface Toast {
  readonly id: number
  readonly ok: boolean
  readonly text: string
}

const describe = (failure: Failure) => `${failure.message} (${failure.status} ${failure.code})`

export const Console = (props: { readonly operator: Operator; readonly onSignOut: () => void }) => {
  const { client, me } = props.operator
  const acls = useMemo(() => new Set(me.user.acls), [me])
  const can = useCallback((acl: string) => acls.has("*") || acls.has(acl), [acls])
  const [live, setLive] = useState<Live>({ stats: undefined, history: [], failure: undefined, updatedAt: undefined })
  const [tick, setTick] = useState(0)
  const [pending, setPending] = useState<Action | undefined>(undefined)
  const [toasts, setToasts] = useState<ReadonlyArray<Toast>>([])
  const toastId = useRef(0)

  const polling = useRef(false)
  const poll = useCallback(async () => {
    // A slow answer is not stacked on, and a hidden tab does not load the cluster.
    if (polling.current || document.visibilityState === "hidden") return
    polling.current = true
    if (can(STATS_ACL)) {
      const answer = await client.get("/admin/gateway/stats", GatewayStats)
      const now = Date.now()
      setLive((before) => {
        if (!answer.ok) return { ...before, failure: answer.failure }
        const stats = answer.value
        const sample: Sample = { at: now, sessions: stats.sessions, guilds: stats.guilds, memory: stats.memory.total }
        const history = [...before.history.filter((s) => s.at > now - HISTORY_MS), sample]
        return { stats, history, failure: undefined, updatedAt: now }
      })
    }
    polling.current = false
    setTick((n) => n + 1)
  }, [client, can])

  useEffect(() => {
    void poll()
    const timer = setInterval(() => void poll(), POLL_MS)
    return () => clearInterval(timer)
  }, [poll])

  const toast = (ok: boolean, text: string) => {
    const id = ++toastId.current
    setToasts((list) => [...list, { id, ok, text }].slice(-4))
    setTimeout(() => setToasts((list) => list.filter((t) => t.id !== id)), TOAST_MS)
  }

  const confirmPending = async () => {
    const action = pending
    setPending(undefined)
    if (action === undefined) return
    const result = await action.run()
    if (result.ok) toast(true, result.value)
    else toast(false, `${action.title} failed: ${describe(result.failure)}`)
    void poll()
  }

  const panelProps: PanelProps = { client, live, tick, can, act: setPending }
  const shown = panels.filter((panel) => panel.acls.some(can))
  const status = live.failure !== undefined
    ? { tone: "bad", text: `Stats failing: ${describe(live.failure)}` }
    : live.updatedAt === undefined
    ? { tone: "idle", text: can(STATS_ACL) ? "Connecting…" : "No stats ACL" }
    : { tone: "good", text: `Live · updated ${clock(live.updatedAt)}` }

  return (
    <div class="console">
      <header class="topbar">
        <div class="brand"><span class="brand-mark" aria-hidden="true">G</span> Guildhall <span class="brand-sub">Operators' console</span></div>
        <div class="topbar-right">
          <span class={`status status-${status.tone}`} id="live-status">{status.text}</span>
          <span class="who" id="operator">
            {props.operator.sessionToken === undefined ? "API key" : me.user.username} · {me.user.id}
          </span>
          <button type="button" class="button ghost" onClick={props.onSignOut}>Sign out</button>
        </div>
      </header>
      <div class="toasts" role="status" aria-live="polite">
        {toasts.map((t) => <div key={t.id} class={t.ok ? "toast toast-ok" : "toast toast-bad"}>{t.text}</div>)}
      </div>
      <main class="grid">
        {shown.length === 0 && <p class="empty">This credential holds no ACL that a panel needs.</p>}
        {shown.map((panel) => (
          <section key={panel.id} id={panel.id} class={`panel span-${panel.span}`} aria-labelledby={`${panel.id}-title`}>
            <header class="panel-head">
              <h2 id={`${panel.id}-title`}>{panel.title}</h2>
              <p>{panel.subtitle}</p>
            </header>
            <div class="panel-body"><panel.component {...panelProps} /></div>
          </section>
        ))}
      </main>
      {pending !== undefined && <Confirm action={pending} onCancel={() => setPending(undefined)} onConfirm={() => void confirmPending()} />}
    </div>
  )
}
