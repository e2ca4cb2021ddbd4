import { dateTime, plural } from "../format.ts"
import type { PanelProps } from "../panel.ts"
import { AuditLogs } from "../schemas.ts"
import { usePolled } from "../usePolled.ts"

const SHOWN = 12

/** The newest entries of the operators' audit log (`POST /admin/audit-logs`). */
export const AuditLog = ({ client, tick }: PanelProps) => {
  const answer = usePolled(tick, () => client.post("/admin/audit-logs", { limit: SHOWN }, AuditLogs))
  if (answer === undefined) return <p class="muted">Loading…</p>
  if (!answer.ok) return <p class="alert">{answer.failure.message} ({answer.failure.code})</p>
  const { logs, total } = answer.value
  if (logs.length === 0) return <p class="muted">No operator has acted yet.</p>
  return (
    <>
      <table class="table" id="audit-table">
        <thead>
          <tr>
            <th>When</th>
            <th>Action</th>
            <th>Target</th>
            <th>Operator</th>
          </tr>
        </thead>
        <tbody>
          {logs.map((entry) => (
            <tr key={entry.log_id} data-action={entry.action}>
              <td class="nowrap small">{dateTime(entry.created_at)}</td>
              <td><span class="badge badge-action">{entry.action}</span></td>
              <td class="small">
                <span class="muted">{entry.target_type}</span> <span class="mono">{entry.target_id}</span>
                {entry.audit_log_reason !== null && <div class="muted">{entry.audit_log_reason}</div>}
              </td>
              <td class="mono small">{entry.admin_user_id}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted small">{plural(total, "entry", "entries")} in all; the newest {logs.length} shown.</p>
    </>
  )
}
