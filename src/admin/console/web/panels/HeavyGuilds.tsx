import { bytes, count } from "../format.ts"
import { reloadGuild, shutdownGuild } from "../guildActions.ts"
import type { PanelProps } from "../panel.ts"
import { MemoryStats } from "../schemas.ts"
import { usePolled } from "../usePolled.ts"

const SHOWN = 8

/** The guild actors holding the most memory (`POST /admin/gateway/memory-stats`), with their commands. */
export const HeavyGuilds = ({ client, tick, can, act }: PanelProps) => {
  const answer = usePolled(tick, () => client.post("/admin/gateway/memory-stats", { limit: SHOWN }, MemoryStats))
  if (answer === undefined) return <p class="muted">Loading…</p>
  if (!answer.ok) return <p class="alert">{answer.failure.message} ({answer.failure.code})</p>
  const guilds = answer.value.guilds
  if (guilds.length === 0) return <p class="muted">No guild actor is live.</p>
  const heaviest = Math.max(...guilds.map((g) => g.memory), 1)
  return (
    <table class="table" id="heavy-table">
      <thead>
        <tr>
          <th>Guild</th>
          <th class="num">Memory</th>
          <th class="num">Members</th>
          <th class="num">Sessions</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {guilds.map((g) => (
          <tr key={g.guild_id} data-guild={g.guild_id}>
            <td>
              <div class="strong">{g.guild_name}</div>
              <div class="mono muted small">{g.guild_id}</div>
            </td>
            <td class="num">
              {bytes(g.memory)}
              <svg class="bar" viewBox="0 0 100 4" preserveAspectRatio="none" aria-hidden="true">
                <rect class="bar-track" width="100" height="4" />
                <rect class="bar-fill" width={(g.memory / heaviest) * 100} height="4" />
              </svg>
            </td>
            <td class="num">{count(g.member_count)}</td>
            <td class="num">{count(g.session_count)}</td>
            <td class="actions">
              {can("guild:reload") && (
                <button type="button" class="button small" onClick={() => act(reloadGuild(client, g.guild_id, g.guild_name))}>Reload</button>
              )}
              {can("guild:shutdown") && (
                <button type="button" class="button small danger-outline" onClick={() => act(shutdownGuild(client, g.guild_id, g.guild_name))}>
                  Shut down
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
