import { bytes, count, duration } from "../format.ts"
import type { PanelProps } from "../panel.ts"

/** Each live process of the cluster, API processes first. */
export const Processes = ({ live }: PanelProps) => {
  const processes = [...(live.stats?.processes ?? [])].sort((a, b) =>
    a.role.localeCompare(b.role) || a.host.localeCompare(b.host) || a.pid - b.pid
  )
  if (processes.length === 0) return <p class="muted">No process has published its figures yet.</p>
  return (
    <table class="table" id="process-table">
      <thead>
        <tr>
          <th>Role</th>
          <th>Host</th>
          <th class="num">PID</th>
          <th class="num">Uptime</th>
          <th class="num">Memory</th>
          <th class="num">Heap</th>
          <th class="num">Guilds</th>
          <th class="num">Users</th>
          <th class="num">Sessions</th>
        </tr>
      </thead>
      <tbody>
        {processes.map((p) => (
          <tr key={p.process_id} data-role={p.role} data-process={p.process_id}>
            <td><span class={`badge badge-${p.role}`}>{p.role}</span></td>
            <td class="mono">{p.host}</td>
            <td class="num mono">{p.pid}</td>
            <td class="num">{duration(p.uptime_seconds)}</td>
            <td class="num">{bytes(p.memory)}</td>
            <td class="num">{bytes(p.heap_used)}</td>
            <td class="num" data-field="guilds">{count(p.guilds)}</td>
            <td class="num">{count(p.users)}</td>
            <td class="num">{count(p.sessions)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
