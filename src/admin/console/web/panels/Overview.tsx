import { bytes, count, duration } from "../format.ts"
import type { PanelProps } from "../panel.ts"

const Tile = (props: { readonly id: string; readonly label: string; readonly value: string; readonly note?: string }) => (
  <div class="tile" data-tile={props.id}>
    <span class="tile-label">{props.label}</span>
    <span class="tile-value">{props.value}</span>
    {props.note !== undefined && <span class="tile-note">{props.note}</span>}
  </div>
)

/** The deployment's totals, summed over its processes. */
export const Overview = ({ live }: PanelProps) => {
  const stats = live.stats
  if (stats === undefined) return <p class="muted">Waiting for the first figures…</p>
  const roles = new Map<string, number>()
  for (const p of stats.processes) roles.set(p.role, (roles.get(p.role) ?? 0) + 1)
  const mix = [...roles].map(([role, n]) => `${n} ${role}`).join(" · ")
  return (
    <div class="tiles">
      <Tile id="processes" label="Processes" value={count(stats.process_count)} note={mix} />
      <Tile id="guilds" label="Live guilds" value={count(stats.guilds)} note="guild actors in memory" />
      <Tile id="sessions" label="Gateway sessions" value={count(stats.sessions)} note={`${count(stats.presences)} online`} />
      <Tile id="memory" label="Memory" value={bytes(stats.memory.total)} note={`${bytes(stats.memory.processes)} JS heap`} />
      <Tile id="calls" label="Calls" value={count(stats.calls)} note="voice calls live" />
      <Tile id="uptime" label="Uptime" value={duration(stats.uptime_seconds)} note={`status ${stats.status}`} />
    </div>
  )
}
