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

export const GuildRoleCreateRequest = Schema.Struct({
  name: RoleName,
  color: Schema.optional(Color),
  permissions: Schema.optional(Permissions)
})
export type GuildRoleCreateRequest = typeof GuildRoleCreateRequest.Type

export const GuildRoleUpdateRequest = Schema.Struct({
  name: Schema.optional(RoleName),
  color: Schema.optional(Color),
  permissions: Schema.optional(Permissions),
  hoist: Schema.optional(Schema.Boolean),
  hoist_position: Schema.optional(Schema.NullOr(Position)),
  mentionable: Schema.optional(Schema.Boolean)
})
export type GuildRoleUpdateRequest = typeof GuildRoleUpdateRequest.Type

export const GuildRolePositionsRequest = Schema.Array(Schema.Struct({ id: Snowflake, position: Schema.optional(Position) }))
  .check(Schema.isMaxLength(250))
export type GuildRolePositionsRequest = typeof GuildRolePositionsRequest.Type

export const GuildRoleHoistPositionsRequest = Schema.Array(Schema.Struct({ id: Snowflake, hoist_position: Position }))
  .check(Schema.isMaxLength(250))
export type GuildRoleHoistPositionsRequest = typeof GuildRoleHoistPositionsRequest.Type

/** Permissions of a request as the bits they name. */
export const permissionBits = (value: string | number): bigint => BigInt(value)
