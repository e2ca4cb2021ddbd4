import { Schema } from "effect"
import { BoundedText } from "./Common.ts"
import { Snowflake } from "./Ids.ts"

/** A role colour: 0x000000 to 0xffffff, with the validation codes of part A. */
const Color = Schema.Int.check(
  Schema.makeFilter((n: number) => n >= 0 || "COLOR_VALUE_TOO_LOW: Color value must be at least 0x000000"),
  Schema.makeFilter((n: number) => n <= 0xffffff || "COLOR_VALUE_TOO_HIGH: Color value must not exceed 0xffffff")
)

/** UnsignedInt64Type: a decimal string or a non-negative integer. */
const Permissions = Schema.Union([
  Schema.String.check(
    Schema.isPattern(/^[0-9]{1,20}$/, { message: "INVALID_INTEGER_FORMAT: Value is not an unsigned integer" }),
    Schema.makeFilter((s: string) => BigInt(s) < 2n ** 64n || "INTEGER_OUT_OF_INT64_RANGE: Value is out of range")
  ),
  Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
])

const RoleName = BoundedText(1, 100)
const Position = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2147483647 }))

/**
 * Discord's role colours (discord.js sends only these): the primary is the
 * role's colour; a gradient's other colours are not kept here, so a role shows
 * them as null.
 */
const RoleColors = Schema.Struct({
  primary_color: Color,
  secondary_color: Schema.optional(Schema.NullOr(Color)),
  tertiary_color: Schema.optional(Schema.NullOr(Color))
})

/** What a role create and a role update both take, as both SDKs send them. */
const roleSettings = {
  color: Schema.optionalKey(Color),
  colors: Schema.optionalKey(RoleColors),
  permissions: Schema.optionalKey(Permissions),
  hoist: Schema.optionalKey(Schema.Boolean),
  hoist_position: Schema.optional(Schema.NullOr(Position)),
  mentionable: Schema.optionalKey(Schema.Boolean),
  unicode_emoji: Schema.optional(Schema.NullOr(BoundedText(1, 32)))
}

/** POST /guilds/{id}/roles: the settings, and where in the list the role goes (at the bottom without). */
export const GuildRoleCreateRequest = Schema.Struct({
  name: RoleName,
  ...roleSettings,
  position: Schema.optional(Position)
})
export type GuildRoleCreateRequest = typeof GuildRoleCreateRequest.Type

export const GuildRoleUpdateRequest = Schema.Struct({
  name: Schema.optionalKey(RoleName),
  ...roleSettings
})
export type GuildRoleUpdateRequest = typeof GuildRoleUpdateRequest.Type

/** The colour a request asks for: `colors.primary_color` (Discord's newer field) over `color`; undefined when neither. */
export const requestedColor = (request: { readonly color?: number; readonly colors?: { readonly primary_color: number } }) =>
  request.colors?.primary_color ?? request.color

export const GuildRolePositionsRequest = Schema.Array(Schema.Struct({ id: Snowflake, position: Schema.optional(Position) }))
  .check(Schema.isMaxLength(250))
export type GuildRolePositionsRequest = typeof GuildRolePositionsRequest.Type

export const GuildRoleHoistPositionsRequest = Schema.Array(Schema.Struct({ id: Snowflake, hoist_position: Position }))
  .check(Schema.isMaxLength(250))
export type GuildRoleHoistPositionsRequest = typeof GuildRoleHoistPositionsRequest.Type

/** Permissions of a request as the bits they name. */
export const permissionBits = (value: string | number): bigint => BigInt(value)
