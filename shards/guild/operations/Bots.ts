import { Effect, Schema } from "effect"
import type { GuildRole } from "../roles/GuildRole.ts"
import { memberView } from "../members/GuildMember.ts"
import { BadRequest } from "../../../src/model/Errors.ts"
import { UserPartialResponse } from "../../../src/model/Users.ts"
import { requirePermission } from "../Access.ts"
import { admit, checkAdmission } from "../members/Admission.ts"
import type { GuildState } from "../State.ts"
import { write } from "../Definitions.ts"
import { ALL_PERMISSIONS, Permission } from "../../../src/model/Permissions.ts"
import { JOIN_SOURCE_BOT_INVITE } from "../members/JoinSources.ts"
import { requireGrantable } from "./RoleChecks.ts"
import { checkRoleRoom, newRole, roleAdded } from "./Roles.ts"
import { placeNewRole } from "./RoleOrder.ts"
import { setMemberRoles } from "./RoleRows.ts"
import { CarriedId } from "../../../src/model/Ids.ts"


/** Audit log action types (part C, AuditLogActionType). */
const BOT_ADD = 28

/** The bot's managed role, for the permissions its invitation asked for, named after its application. */
const botRole = (roleId: string, applicationName: string, permissions: bigint, botId: string): GuildRole => ({
  ...newRole(roleId, [...applicationName].slice(0, 100).join(""), permissions),
  bot_id: botId
})

/**
 * POST /oauth2/authorize/consent with the `bot` scope: a member holding
 * MANAGE_GUILD adds the application's bot. Asked-for permissions (which the
 * member must hold, as for any role they grant) come on the bot's managed role
 * (`managed`, `tags.bot_id`), as `roleId`, at the bottom of the list; none
 * asked, no role, as on Discord. The role leaves with the bot (BotRoles.ts).
 * A banned bot or a full guild is refused.
 */
export const addBot = write(
  "AddBot",
  { bot: UserPartialResponse, applicationName: Schema.String, roleId: CarriedId.RoleId, permissions: Schema.String },
  Schema.Null,
  (state, { bot, applicationName, roleId, permissions }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.MANAGE_GUILD, context.now)
      if (state.members.has(bot.id)) {
        return yield* new BadRequest({ code: "BOT_ALREADY_IN_GUILD", message: "The bot is in this guild already" })
      }
      yield* checkAdmission(state, bot.id, context.now)
      const granted = BigInt(permissions) & ALL_PERMISSIONS
      if (granted !== 0n) {
        yield* requireGrantable(state, context.actorId, granted)
        yield* checkRoleRoom(state, context.limits)
      }
      const joined = admit(state, context.guildId, bot, {
        joinSourceType: JOIN_SOURCE_BOT_INVITE,
        sourceInviteCode: null,
        inviterId: context.actorId
      }, context.now)
      const added = { actionType: BOT_ADD, targetId: bot.id, changes: [] }
      const member = joined.next.members.get(bot.id)
      if (granted === 0n || member === undefined) return { ...joined, reply: null, audit: [added] }

      const role = roleAdded(joined.next, context.guildId, placeNewRole(joined.next, context.actorId, botRole(roleId, applicationName, granted, bot.id), undefined))
      const withRole = { ...member, roles: [roleId] }
      return {
        ...joined,
        next: { ...role.next, members: role.next.members.with(bot.id, withRole) },
        reply: null,
        persist: Effect.gen(function*() {
          yield* joined.persist
          yield* role.persist
          yield* setMemberRoles(context.guildId, bot.id, withRole.roles)
        }),
        audit: [added, role.audit],
        // In the order they happened: the role, the bot joining, the bot given the role.
        events: [
          ...role.events,
          ...joined.events,
          { type: "GUILD_MEMBER_UPDATE", data: { guild_id: context.guildId, ...memberView(withRole) } }
        ]
      }
    })
)

export const botsWrites = [addBot] as const
