import { Effect, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { UserPartialResponse } from "../../../src/model/Users.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { requirePermission } from "../Access.ts"
import { admit, checkAdmission } from "../members/Admission.ts"
import { JOIN_SOURCE_DISCOVERY } from "../members/JoinSources.ts"
import { type Decision, unchanged, write, type WriteContext } from "../Definitions.ts"
import type { GuildState } from "../State.ts"
import { recordChange } from "./Settings.ts"

/** The guild feature a listed guild carries. */
export const DISCOVERABLE = "DISCOVERABLE"

/**
 * A change of the guild's discovery row (`row`, in the write's transaction)
 * with the DISCOVERABLE feature set to `listed`: when the feature changes, it
 * changes as any change of the guild record does (GUILD_UPDATE audited and
 * dispatched).
 */
export const discoveryChange = (
  state: GuildState,
  listed: boolean,
  context: WriteContext,
  row: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>
): Decision<null> => {
  if (state.guild.features.includes(DISCOVERABLE) === listed) return { ...unchanged(state, null), persist: row }
  const features = listed ? [...state.guild.features, DISCOVERABLE] : state.guild.features.filter((f) => f !== DISCOVERABLE)
  const changed = recordChange(state, { features }, context)
  return { ...changed, reply: null, persist: Effect.andThen(changed.persist ?? Effect.void, row) }
}

/**
 * POST /discovery/guilds/{id}/join: `user` joins a listed guild (the caller
 * checked the listing), unless banned or the guild is full. Joining again as
 * a member changes nothing.
 */
export const joinFromDiscovery = write("JoinFromDiscovery", { user: UserPartialResponse }, Schema.Null, (state, { user }, context) =>
  Effect.gen(function*() {
    yield* checkAdmission(state, user.id, context.now)
    if (state.members.has(user.id)) return unchanged(state, null)
    const joined = admit(state, context.guildId, user, {
      joinSourceType: JOIN_SOURCE_DISCOVERY,
      sourceInviteCode: null,
      inviterId: null
    }, context.now)
    return { ...joined, reply: null, audit: [] }
  }))

/** DELETE /guilds/{id}/discovery: MANAGE_GUILD; the application (or the listing) goes, and DISCOVERABLE with it. */
export const withdrawFromDiscovery = write("WithdrawFromDiscovery", {}, Schema.Null, (state, _, context) =>
  Effect.gen(function*() {
    yield* requirePermission(state, context.actorId, Permission.MANAGE_GUILD, context.now)
    const row = Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`DELETE FROM guild_discovery WHERE guild_id = ${context.guildId}`))
    return discoveryChange(state, false, context, row)
  }))

export const discoveryWrites = [joinFromDiscovery, withdrawFromDiscovery] as const
