import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { GuildAdminResponse, GuildAsset, GuildMembersPage, LookupGuild } from "../../../src/model/AdminGuilds.ts"
import { invalidField, unknown } from "../../../src/model/Errors.ts"
import { read, unchanged, write } from "../Definitions.ts"
import { memberView } from "../members/GuildMember.ts"
import type { GuildState } from "../State.ts"
import { changeRecord, resetVanityUses } from "./Settings.ts"

/**
 * What operators read and change of a guild (/admin/guilds/*). The route's ACL
 * was checked at HTTP: no member permission applies here. Each change goes
 * through `changeRecord`, so it is persisted, audited (as the operator) and
 * announced as a member's own change would be.
 */

export const adminView = (state: GuildState): GuildAdminResponse => ({
  id: state.guild.id,
  owner_id: state.guild.owner_id,
  name: state.guild.name,
  icon: state.guild.icon,
  banner: state.guild.banner,
  features: state.guild.features,
  member_count: state.members.size
})

/** POST /admin/guilds/lookup */
export const adminLookup = read("AdminLookupGuild", {}, LookupGuild, (state) => {
  const g = state.guild
  return Effect.succeed({
    id: g.id,
    owner_id: g.owner_id,
    name: g.name,
    vanity_url_code: g.vanity_url_code,
    icon: g.icon,
    banner: g.banner,
    splash: g.splash,
    embed_splash: g.embed_splash,
    features: g.features,
    verification_level: g.verification_level,
    mfa_level: g.mfa_level,
    nsfw_level: g.nsfw_level,
    explicit_content_filter: g.explicit_content_filter,
    default_message_notifications: g.default_message_notifications,
    afk_channel_id: g.afk_channel_id,
    afk_timeout: g.afk_timeout,
    system_channel_id: g.system_channel_id,
    system_channel_flags: g.system_channel_flags,
    rules_channel_id: g.rules_channel_id,
    disabled_operations: g.disabled_operations,
    member_count: state.members.size,
    channels: [...state.channels.values()].map((c) => ({
      id: c.id,
      name: c.name ?? null,
      type: c.type,
      position: c.position,
      parent_id: c.parent_id
    })),
    roles: [...state.roles.values()].map((r) => ({
      id: r.id,
      name: r.name,
      color: r.color,
      position: r.position,
      permissions: r.permissions,
      hoist: r.hoist,
      mentionable: r.mentionable
    }))
  })
})

/** POST /admin/guilds/list-members: a page by offset, in id order. */
export const adminListMembers = read(
  "AdminListMembers",
  { limit: Schema.Int, offset: Schema.Int },
  GuildMembersPage,
  (state, { limit, offset }) => {
    const members = [...state.members.values()]
      .sort((a, b) => (BigInt(a.user.id) < BigInt(b.user.id) ? -1 : 1))
      .slice(offset, offset + limit)
      .map(memberView)
    return Effect.succeed({ members, total: state.members.size, limit, offset })
  }
)

/** GET /admin/guilds/{id}/emojis and /stickers */
export const adminAssets = read(
  "AdminGuildAssets",
  { kind: Schema.Literals(["emojis", "stickers"]) },
  Schema.Array(GuildAsset),
  (state, { kind }) =>
    Effect.succeed([...(kind === "emojis" ? state.emojis : state.stickers).values()].map((e) => ({
      id: e.id,
      name: e.name,
      animated: e.animated,
      creator_id: e.creator.id,
      media_hash: e.mediaHash
    })))
)

const Level = (max: number) => Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: max }))

/** The record fields an operator sets directly: name, the moderation settings, and image fields cleared. */
export const AdminRecordChange = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  icon: Schema.optionalKey(Schema.Null),
  banner: Schema.optionalKey(Schema.Null),
  splash: Schema.optionalKey(Schema.Null),
  embed_splash: Schema.optionalKey(Schema.Null),
  default_message_notifications: Schema.optionalKey(Level(1)),
  verification_level: Schema.optionalKey(Level(4)),
  mfa_level: Schema.optionalKey(Level(1)),
  nsfw_level: Schema.optionalKey(Level(3)),
  explicit_content_filter: Schema.optionalKey(Level(2)),
  disabled_operations: Schema.optionalKey(Schema.Int)
})
export type AdminRecordChange = typeof AdminRecordChange.Type

/** update-name, update-settings, clear-fields: written and announced even when equal, as production does. */
export const adminChangeRecord = write(
  "AdminChangeGuildRecord",
  { change: AdminRecordChange },
  GuildAdminResponse,
  (state, { change }, context) =>
    Effect.sync(() => changeRecord(state, change, context, adminView))
)

/** update-features and the bulk form: added then removed, as production applies them. */
export const adminUpdateFeatures = write(
  "AdminUpdateGuildFeatures",
  { add: Schema.Array(Schema.String), remove: Schema.Array(Schema.String) },
  GuildAdminResponse,
  (state, { add, remove }, context) =>
    Effect.sync(() => {
      const features = new Set(state.guild.features)
      for (const f of add) features.add(f)
      for (const f of remove) features.delete(f)
      const next = [...features]
      const same = next.length === state.guild.features.length && next.every((f, i) => state.guild.features[i] === f)
      return same ? unchanged(state, adminView(state)) : changeRecord(state, { features: next }, context, adminView)
    })
)

/** update-vanity: the HTTP side refused a code another guild holds; null removes it. */
export const adminSetVanity = write(
  "AdminSetGuildVanity",
  { code: Schema.NullOr(Schema.String) },
  GuildAdminResponse,
  (state, { code }, context) =>
    Effect.sync(() => {
      if (state.guild.vanity_url_code === code) return unchanged(state, adminView(state))
      const change = changeRecord(state, { vanity_url_code: code }, context, adminView)
      return { ...change, persist: Effect.andThen(change.persist, resetVanityUses(context.guildId)) }
    })
)

/** transfer-ownership: to a member who is not a bot. */
export const adminTransferOwnership = write(
  "AdminTransferGuildOwnership",
  { newOwnerId: Schema.String },
  GuildAdminResponse,
  (state, { newOwnerId }, context) =>
    Effect.gen(function*() {
      const heir = state.members.get(newOwnerId)
      if (heir === undefined) return yield* unknown("MEMBER")
      if (heir.user.bot === true) {
        return yield* invalidField("new_owner_id", "CANNOT_TRANSFER_OWNERSHIP_TO_BOT", "A bot cannot own a guild")
      }
      if (state.guild.owner_id === newOwnerId) return unchanged(state, adminView(state))
      return changeRecord(state, { owner_id: newOwnerId }, context, adminView)
    })
)

const DeletedGuild = Schema.Struct({ memberIds: Schema.Array(Schema.String) })

/** delete: as the owner's deletion (Guild.ts), the rows cascade with the guild's; answered with who were members. */
export const adminDeleteGuild = write("AdminDeleteGuild", {}, DeletedGuild, (state, _command, context) =>
  Effect.succeed({
    next: state,
    reply: { memberIds: [...state.members.keys()] },
    persist: Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`DELETE FROM guilds WHERE id = ${context.guildId}`)),
    audit: [],
    events: [{ type: "GUILD_DELETE", data: { id: context.guildId } }],
    dropsGuild: true
  }))

export const adminGuildWrites = [
  adminChangeRecord, adminUpdateFeatures, adminSetVanity, adminTransferOwnership, adminDeleteGuild
] as const
export const adminGuildReads = [adminLookup, adminListMembers, adminAssets] as const
