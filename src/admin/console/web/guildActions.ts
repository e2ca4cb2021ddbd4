import type { AdminClient } from "./api.ts"
import type { Action } from "./panel.ts"
import { Done, ReloadAllAnswer } from "./schemas.ts"

/** The guild actor commands, worded once for every panel that offers them. */

const named = (guildId: string, name: string | undefined) => name === undefined ? `guild ${guildId}` : `“${name}” (${guildId})`

export const reloadGuild = (client: AdminClient, guildId: string, name?: string): Action => ({
  title: "Reload guild actor",
  detail: `Reload ${named(guildId, name)}: its actor reads the guild again from Postgres. Connected members stay connected.`,
  confirm: "Reload",
  danger: false,
  run: async () => {
    const result = await client.post("/admin/guilds/reload", { guild_id: guildId }, Done)
    return result.ok ? { ok: true, value: `Reloaded ${named(guildId, name)}.` } : result
  }
})

export const shutdownGuild = (client: AdminClient, guildId: string, name?: string): Action => ({
  title: "Shut down guild actor",
  detail: `Shut down ${named(guildId, name)}: its actor stops and leaves memory. The next request for the guild starts it again.`,
  confirm: "Shut down",
  danger: true,
  run: async () => {
    const result = await client.post("/admin/guilds/shutdown", { guild_id: guildId }, Done)
    return result.ok ? { ok: true, value: `Shut down ${named(guildId, name)}.` } : result
  }
})

export const reloadAll = (client: AdminClient, live: number | undefined): Action => ({
  title: "Reload every live guild actor",
  detail: `Every process reloads each guild actor it holds${live === undefined ? "" : ` (about ${live} now)`}, in small batches in the background.`,
  confirm: "Reload all",
  danger: true,
  run: async () => {
    const result = await client.post("/admin/gateway/reload-all", { guild_ids: [] }, ReloadAllAnswer)
    return result.ok ? { ok: true, value: `Reload of ${result.value.count} live guild actors started.` } : result
  }
})
