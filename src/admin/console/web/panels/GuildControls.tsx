import { useState } from "preact/hooks"
import { reloadAll, reloadGuild, shutdownGuild } from "../guildActions.ts"
import type { PanelProps } from "../panel.ts"

const SNOWFLAKE = /^\d{1,20}$/

/** Reload or shut down one guild's actor by id; reload every live one. */
export const GuildControls = ({ client, live, can, act }: PanelProps) => {
  const [guildId, setGuildId] = useState("")
  const id = guildId.trim()
  const valid = SNOWFLAKE.test(id)
  return (
    <div class="stack">
      <label class="field">
        <span>Guild id</span>
        <input name="guild-id" inputMode="numeric" placeholder="e.g. 1337000000000000000" value={guildId} onInput={(e) => setGuildId(e.currentTarget.value)} />
      </label>
      <div class="row">
        {can("guild:reload") && (
          <button type="button" class="button" disabled={!valid} onClick={() => act(reloadGuild(client, id))}>Reload actor</button>
        )}
        {can("guild:shutdown") && (
          <button type="button" class="button danger-outline" disabled={!valid} onClick={() => act(shutdownGuild(client, id))}>
            Shut down actor
          </button>
        )}
      </div>
      {can("gateway:reload_all") && (
        <div class="callout">
          <div>
            <div class="strong">Reload every live guild actor</div>
            <div class="muted small">After a change made straight in Postgres, or a deploy that changes how guilds load.</div>
          </div>
          <button type="button" class="button danger" id="reload-all" onClick={() => act(reloadAll(client, live.stats?.guilds))}>Reload all</button>
        </div>
      )}
    </div>
  )
}
