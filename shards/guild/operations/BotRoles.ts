import { Effect } from "effect"
import type { GuildState } from "../State.ts"
import { deleteRole } from "./RoleRows.ts"

/**
 * The bot `userId` left (kicked, banned, left): its managed role goes with it,
 * as on Discord. Nothing when the member had none.
 */
export const botRoleRemoval = (state: GuildState, guildId: string, userId: string) => {
  const role = [...state.roles.values()].find((r) => r.bot_id === userId)
  if (role === undefined) return { next: state, persist: Effect.void, events: [] }
  const roles = new Map(state.roles)
  roles.delete(role.id)
  return {
    next: { ...state, roles },
    persist: deleteRole(guildId, role.id),
    events: [{ type: "GUILD_ROLE_DELETE", data: { guild_id: guildId, role_id: role.id } }]
  }
}
