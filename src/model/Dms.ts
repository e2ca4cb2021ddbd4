import { Schema } from "effect"
import { BoundedText } from "./Common.ts"
import { Snowflake } from "./Ids.ts"

/** Channel types of DMs (the guild ones are in src/channels/Schemas.ts). */
/** Recipients a group DM may hold besides its owner (ChannelResponse.recipients, maxItems=49). */
export const MAX_GROUP_DM_RECIPIENTS = 49
/** PreloadMessagesRequest.channels, maxItems=100 (part A, Limits). */
export const MAX_PRELOAD_CHANNELS = 100

/**
 * CreatePrivateChannelRequest: `recipient_id` opens the DM with one user;
 * `recipients` makes a group DM. A check's message starts with its validation code.
 */
export const CreatePrivateChannelRequest = Schema.Struct({
  recipient_id: Schema.optional(Snowflake),
  recipients: Schema.optional(
    Schema.Array(Snowflake).check(
      Schema.makeFilter((ids) => ids.length > 0 || "RECIPIENT_IDS_CANNOT_BE_EMPTY: Name at least one recipient"),
      Schema.makeFilter((ids) =>
        ids.length <= MAX_GROUP_DM_RECIPIENTS ||
        `MAX_GROUP_DM_RECIPIENTS: A group DM has at most ${MAX_GROUP_DM_RECIPIENTS} other recipients`),
      Schema.makeFilter((ids) =>
        new Set(ids).size === ids.length || "DUPLICATE_RECIPIENTS_NOT_ALLOWED: A recipient is named twice")
    )
  )
}).check(Schema.makeFilter((r) =>
  r.recipient_id !== undefined || r.recipients !== undefined ||
  "AT_LEAST_ONE_RECIPIENT_REQUIRED: Give recipient_id or recipients"))
export type CreatePrivateChannelRequest = typeof CreatePrivateChannelRequest.Type

export const PreloadMessagesRequest = Schema.Struct({
  channels: Schema.Array(Snowflake).check(Schema.makeFilter((ids) =>
    ids.length <= MAX_PRELOAD_CHANNELS ||
    `CANNOT_PRELOAD_MORE_THAN_100_CHANNELS: At most ${MAX_PRELOAD_CHANNELS} channels at once`))
})

/** CallRingBodySchema: whom to ring (or stop ringing); everyone else in the channel when absent. */
export const CallRingRequest = Schema.Struct({
  recipients: Schema.optional(Schema.Array(Snowflake).check(Schema.isMaxLength(MAX_GROUP_DM_RECIPIENTS + 1))),
  latitude: Schema.optional(Schema.String),
  longitude: Schema.optional(Schema.String)
})

/** CallUpdateBodySchema: the voice region of the call (null: chosen automatically); the position is not used here. */
export const CallUpdateRequest = Schema.Struct({
  region: Schema.optional(Schema.NullOr(BoundedText(1, 64))),
  latitude: Schema.optionalKey(Schema.String),
  longitude: Schema.optionalKey(Schema.String)
})

export const CallEligibilityResponse = Schema.Struct({ ringable: Schema.Boolean, silent: Schema.Boolean })

/** What a recipient may change of a group DM (GroupDmChannelUpdateRequest); `icon` is already an image hash here. */
export const GroupDmPatch = Schema.Struct({
  name: Schema.optional(Schema.NullOr(BoundedText(1, 100))),
  icon: Schema.optional(Schema.NullOr(Schema.String)),
  owner_id: Schema.optional(Schema.NullOr(Snowflake)),
  nicks: Schema.optional(Schema.NullOr(Schema.Record(Snowflake, Schema.NullOr(BoundedText(1, 32)))))
})
export type GroupDmPatch = typeof GroupDmPatch.Type
