import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ChannelLookup } from "../messages/ChannelLookup.ts"
import { pinRefusal } from "../model/RtcRegions.ts"
import { VoiceCatalog } from "../platform/VoiceCatalog.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { jsonResponse } from "../http/SharedBodies.ts"
import { BadRequest, invalidField, unknown } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { Dms } from "./Dms.ts"
import { maxGroupDms } from "../../shards/dm/GroupDmLimit.ts"
import { DmsRepo } from "./Repo.ts"

const DmsHandlers = HttpApiBuilder.group(Api, "dms", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const dms = yield* Dms
    const repo = yield* DmsRepo
    const channels = yield* ChannelLookup
    const snowflakes = yield* Snowflakes
    const catalog = yield* VoiceCatalog

    /** A DM channel, else 404 UNKNOWN_CHANNEL. */
    const dmChannel = (channelId: string) =>
      channels.byOwner(channelId, { dm: () => Effect.void, guild: () => Effect.fail(unknown("CHANNEL")) })

    /** Calls are for DM channels: a guild channel is the wrong kind (400), anything else unknown (404). */
    const callChannel = (channelId: string) =>
      channels.byOwner(channelId, {
        dm: () => Effect.void,
        guild: () => Effect.fail(new BadRequest({ code: "INVALID_CHANNEL_TYPE_FOR_CALL", message: "Calls are for DM channels" }))
      })

    const existingUser = (userId: string) =>
      Effect.flatMap(repo.user(userId), (user) => (user === undefined ? Effect.fail(unknown("USER")) : Effect.succeed(user)))

    const openDm = (me: string, recipientId: string) =>
      Effect.gen(function*() {
        if (recipientId === me) return yield* invalidField("recipient_id", "CANNOT_DM_YOURSELF", "You cannot DM yourself")
        yield* existingUser(recipientId)
        // Blocks do not stop opening a DM; they stop its messages and calls (shards/dm/operations/).
        const channelId = yield* repo.dmBetween(me, recipientId, snowflakes.next())
        return yield* dms.announce(channelId, [me], me)
      })

    /** A group DM with friends only: nobody is put in a group by a stranger. */
    const createGroup = (me: string, recipients: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const self = recipients.indexOf(me)
        if (self >= 0) {
          return yield* invalidField(`recipients.${self}`, "CANNOT_ADD_YOURSELF_TO_GROUP_DM", "You are in your group DM already")
        }
        const friends = yield* repo.friendsAmong(me, recipients)
        if (recipients.some((id) => !friends.has(id))) {
          return yield* new BadRequest({
            code: "GROUP_DM_RECIPIENTS_NOT_ADDABLE",
            message: "One or more selected users can't be added to this group DM"
          })
        }
        const channelId = snowflakes.next()
        if (!(yield* repo.createGroup(channelId, me, recipients))) return yield* maxGroupDms()
        return yield* dms.announce(channelId, [me, ...recipients], me)
      })

    const preload = (channels: ReadonlyArray<string>) =>
      Effect.flatMap(CurrentUser, (me) => repo.latestMessages(me.id, channels))

    const ringing = (channelId: string, action: "ring" | "stop", recipients: ReadonlyArray<string> | undefined) =>
      Effect.gen(function*() {
        const me = yield* CurrentUser
        yield* callChannel(channelId)
        yield* dms.callAction(channelId, me.id, action, recipients)
      })

    return handlers
      .handle("list", () => Effect.flatMap(CurrentUser, (me) => repo.listFor(me.id)))
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const json = payload.recipients !== undefined
            ? yield* createGroup(me.id, payload.recipients)
            : yield* openDm(me.id, payload.recipient_id ?? "")
          return jsonResponse(json)
        }))
      .handle("preload", ({ payload }) => preload(payload.channels))
      .handle("preloadMessages", ({ payload }) => preload(payload.channels))
      .handle("addRecipient", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* dmChannel(params.channel_id)
          const user = yield* existingUser(params.user_id)
          if (user.id !== me.id && !(yield* repo.friendsAmong(me.id, [user.id])).has(user.id)) {
            return yield* new BadRequest({ code: "NOT_FRIENDS_WITH_USER", message: "You are not friends with this user" })
          }
          yield* dms.addRecipient(params.channel_id, me.id, user)
        }))
      .handle("removeRecipient", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* dmChannel(params.channel_id)
          yield* dms.removeRecipient(params.channel_id, me.id, params.user_id)
        }))
      .handle("call", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* callChannel(params.channel_id)
          return yield* dms.callEligibility(params.channel_id, me.id)
        }))
      .handle("updateCall", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* callChannel(params.channel_id)
          const { region } = payload
          if (region != null) {
            // A call has no guild: regions for certain guilds or guild features are not for it.
            const refusal = pinRefusal(yield* catalog.regions, { guildId: null, guildFeatures: [], userId: me.id }, region)
            if (refusal !== undefined) return yield* invalidField("region", refusal, "Unknown or restricted voice region")
          }
          // Without a region in the body there is nothing to change: the call is only checked to exist.
          yield* dms.callRegion(params.channel_id, me.id, region)
        }))
      .handle("ring", ({ params, payload }) => ringing(params.channel_id, "ring", payload.recipients))
      .handle("stopRinging", ({ params, payload }) => ringing(params.channel_id, "stop", payload.recipients))
      .handle("endCall", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* callChannel(params.channel_id)
          yield* dms.callAction(params.channel_id, me.id, "end")
        }))
  })))

/** The DM routes, with their Postgres side. */
export const DmsHttp = perRequestMiddlewaresOnly(DmsHandlers).pipe(Layer.provide([Dms.layer, DmsRepo.layer, ChannelLookup.layer]))
