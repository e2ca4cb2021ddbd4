import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { BadRequest, Forbidden, missingPermissions, NotFound } from "../../../src/model/Errors.ts"
import { GuildInviteMetadataResponse, GuildInviteResponse, MAX_INVITES_PER_GUILD } from "../../../src/model/Invites.ts"
import { UserPartialResponse } from "../../../src/model/Users.ts"
import { requireMember, requirePermission } from "../Access.ts"
import { admit, checkAdmission } from "../members/Admission.ts"
import { channelPermissions } from "../channels/ChannelPermissions.ts"
import { managedChannel } from "../channels/ChannelAccess.ts"
import {
  findInvite,
  type GuildInvite,
  inviteMetadata,
  invitesDisabled,
  inviteView,
  liveInvites,
  pruneDeadInvites,
  reusableInvite
} from "../members/InviteRules.ts"
import { JOIN_SOURCE_INSTANT_INVITE, JOIN_SOURCE_VANITY_URL } from "../members/JoinSources.ts"
import { read, unchanged, write } from "../Definitions.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import type { GuildState } from "../State.ts"
import { permissionsAt } from "../members/Timeouts.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

/** Audit log action types (part C, AuditLogActionType). */
const INVITE_CREATE = 40
const INVITE_DELETE = 42

const unknownInvite = () => new NotFound({ code: "UNKNOWN_INVITE", message: "Unknown invite" })
const disabled = () => new Forbidden({ code: "INVITES_DISABLED", message: "Invites are disabled in this guild" })


const deleteDead = (guildId: string, codes: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    codes.length === 0 ? Effect.void : Effect.asVoid(sql`DELETE FROM guild_invites WHERE guild_id = ${guildId} AND code IN ${sql.in(codes)}`))

const inviteEvent = (type: "INVITE_CREATE" | "INVITE_DELETE", guildId: string, invite: GuildInvite) => ({
  type,
  data: type === "INVITE_DELETE"
    ? { guild_id: guildId, channel_id: invite.channelId, code: invite.code }
    : {
      guild_id: guildId,
      channel_id: invite.channelId,
      code: invite.code,
      created_at: invite.createdAt,
      inviter: invite.inviter,
      max_age: invite.maxAge,
      max_uses: invite.maxUses,
      temporary: invite.temporary,
      uses: invite.uses
    }
})

/**
 * POST /channels/{id}/invites: CREATE_INSTANT_INVITE in the channel. Without
 * `unique`, a live unused invite of the same inviter and settings is answered again.
 */
export const createInvite = write(
  "CreateInvite",
  {
    code: Schema.String,
    channelId: CarriedId.ChannelId,
    maxAge: Schema.Int,
    maxUses: Schema.Int,
    temporary: Schema.Boolean,
    unique: Schema.Boolean
  },
  GuildInviteMetadataResponse,
  (state, command, context) =>
    Effect.gen(function*() {
      yield* managedChannel(state, context.actorId, command.channelId, Permission.CREATE_INSTANT_INVITE, context.now)
      if (invitesDisabled(state)) return yield* disabled()
      const inviter = state.members.get(context.actorId)?.user ?? null
      const again = command.unique ? undefined : reusableInvite(state, context.actorId, command, context.now)
      if (again !== undefined) return unchanged(state, inviteMetadata(state, again))
      const pruned = pruneDeadInvites(state, context.now)
      if (pruned.state.invites.size >= MAX_INVITES_PER_GUILD) {
        return yield* new BadRequest({ code: "MAX_INVITES", message: `Maximum number of invites reached (${MAX_INVITES_PER_GUILD})` })
      }
      const invite: GuildInvite = {
        code: command.code,
        channelId: command.channelId,
        inviter,
        createdAt: new Date(context.now).toISOString(),
        maxAge: command.maxAge,
        maxUses: command.maxUses,
        uses: 0,
        temporary: command.temporary
      }
      const next: GuildState = { ...pruned.state, invites: new Map(pruned.state.invites).set(invite.code, invite) }
      return {
        next,
        reply: inviteMetadata(next, invite),
        persist: Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* deleteDead(context.guildId, pruned.dead)
          yield* sql`INSERT INTO guild_invites (code, guild_id, channel_id, inviter_id, created_at, max_age, max_uses, temporary)
                     VALUES (${invite.code}, ${context.guildId}, ${invite.channelId}, ${context.actorId}, ${invite.createdAt},
                             ${invite.maxAge}, ${invite.maxUses}, ${invite.temporary})`
        }),
        audit: [{
          actionType: INVITE_CREATE,
          targetId: invite.code,
          changes: [
            { key: "code", new_value: invite.code },
            { key: "channel_id", new_value: invite.channelId },
            { key: "inviter_id", new_value: context.actorId },
            { key: "max_age", new_value: invite.maxAge },
            { key: "max_uses", new_value: invite.maxUses },
            { key: "temporary", new_value: invite.temporary },
            { key: "uses", new_value: 0 }
          ]
        }],
        events: [inviteEvent("INVITE_CREATE", context.guildId, invite)]
      }
    })
)

/** GET /channels/{id}/invites: MANAGE_CHANNELS in the channel. */
export const listChannelInvites = read(
  "ListChannelInvites",
  { channelId: CarriedId.ChannelId, now: Schema.Number },
  Schema.Array(GuildInviteMetadataResponse),
  (state, { channelId, now }, viewerId) =>
    Effect.as(
      managedChannel(state, viewerId, channelId, Permission.MANAGE_CHANNELS, now),
      liveInvites(state, now, channelId).map((invite) => inviteMetadata(state, invite))
    )
)

/** GET /guilds/{id}/invites: MANAGE_GUILD. */
export const listGuildInvites = read(
  "ListGuildInvites",
  { now: Schema.Number },
  Schema.Array(GuildInviteMetadataResponse),
  (state, { now }, viewerId) =>
    Effect.as(
      requirePermission(state, viewerId, Permission.MANAGE_GUILD, now),
      liveInvites(state, now).map((invite) => inviteMetadata(state, invite))
    )
)

/** GET /invites/{code}: anyone holding a live code (or the vanity URL) sees the guild it opens. */
export const getInvite = read("GetInvite", { code: Schema.String, now: Schema.Number }, GuildInviteResponse, (state, { code, now }) => {
  const invite = findInvite(state, code, now)
  return invite === undefined ? Effect.fail(unknownInvite()) : Effect.succeed(inviteView(state, invite))
})

/**
 * POST /invites/{code}: `user` joins through a live invite, unless invites are
 * off or they are banned. Joining again as a member changes nothing.
 */
export const joinByInvite = write(
  "JoinByInvite",
  { code: Schema.String, user: UserPartialResponse },
  GuildInviteResponse,
  (state, { code, user }, context) =>
    Effect.gen(function*() {
      const invite = findInvite(state, code, context.now)
      if (invite === undefined) return yield* unknownInvite()
      if (invitesDisabled(state)) return yield* disabled()
      yield* checkAdmission(state, user.id, context.now)
      if (state.members.has(user.id)) return unchanged(state, inviteView(state, invite))
      const isVanity = !state.invites.has(code)
      const joined = admit(state, context.guildId, user, {
        joinSourceType: isVanity ? JOIN_SOURCE_VANITY_URL : JOIN_SOURCE_INSTANT_INVITE,
        sourceInviteCode: code,
        inviterId: invite.inviter?.id ?? null,
        temporary: invite.temporary
      }, context.now)
      const used = isVanity ? invite : { ...invite, uses: invite.uses + 1 }
      const next: GuildState = isVanity ? joined.next : { ...joined.next, invites: new Map(joined.next.invites).set(code, used) }
      return {
        next,
        reply: inviteView(next, used),
        persist: Effect.gen(function*() {
          yield* joined.persist
          const sql = yield* SqlClient.SqlClient
          if (isVanity) {
            // The vanity URL's uses live beside the guild (schema 0016, GET /guilds/{id}/vanity-url).
            yield* sql`INSERT INTO guild_vanity_url_uses (guild_id, uses) VALUES (${context.guildId}, 1)
                       ON CONFLICT (guild_id) DO UPDATE SET uses = guild_vanity_url_uses.uses + 1`
          } else {
            yield* sql`UPDATE guild_invites SET uses = uses + 1 WHERE code = ${code}`
          }
        }),
        audit: [],
        events: joined.events
      }
    })
)

/** DELETE /invites/{code}: MANAGE_GUILD, or MANAGE_CHANNELS in the invite's channel. */
export const deleteInvite = write("DeleteInvite", { code: Schema.String }, Schema.Null, (state, { code }, context) =>
  Effect.gen(function*() {
    yield* requireMember(state, context.actorId)
    const invite = state.invites.get(code)
    if (invite === undefined) return yield* unknownInvite()
    const channel = state.channels.get(invite.channelId)
    const allowed = has(permissionsAt(state, context.actorId, context.now), Permission.MANAGE_GUILD) ||
      (channel !== undefined && has(channelPermissions(state, context.actorId, channel), Permission.MANAGE_CHANNELS))
    if (!allowed) return yield* missingPermissions()
    const invites = new Map(state.invites)
    invites.delete(code)
    return {
      next: { ...state, invites },
      reply: null,
      persist: Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`DELETE FROM guild_invites WHERE code = ${code}`)),
      audit: [{
        actionType: INVITE_DELETE,
        targetId: code,
        changes: [
          { key: "code", old_value: code },
          { key: "channel_id", old_value: invite.channelId },
          { key: "inviter_id", old_value: invite.inviter?.id ?? null },
          { key: "max_age", old_value: invite.maxAge },
          { key: "max_uses", old_value: invite.maxUses },
          { key: "temporary", old_value: invite.temporary },
          { key: "uses", old_value: invite.uses }
        ]
      }],
      events: [inviteEvent("INVITE_DELETE", context.guildId, invite)]
    }
  }))

export const invitesWrites = [createInvite, joinByInvite, deleteInvite] as const
export const invitesReads = [listChannelInvites, listGuildInvites, getInvite] as const
