import { Effect, Layer } from "effect"
import { legalHoldCheck } from "../messages/LegalHoldCheck.ts"
import { SqlClient } from "effect/sql"
import { HttpApiBuilder } from "effect/http-api"
import * as Channels from "../../shards/guild/operations/Channels.ts"
import * as ChannelLayout from "../../shards/guild/operations/ChannelLayout.ts"
import { guildChannelPatch } from "../dms/ChannelPatch.ts"
import { Dms } from "../dms/Dms.ts"
import { ChannelLookup } from "../messages/ChannelLookup.ts"
import { Actors } from "../guilds/Actors.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { regionsFor, ruleOf } from "../model/RtcRegions.ts"
import { VoiceCatalog } from "../platform/VoiceCatalog.ts"
import { rtcRegionFeatures } from "../../shards/guild/operations/Voice.ts"
import { ChannelId } from "../model/Ids.ts"

const MAX_REASON = 512

/** Who acts and why: clients URL-encode the reason; one that does not decode is kept as sent. */
const by = (headers: { readonly "x-audit-log-reason"?: string | undefined }) =>
  Effect.map(CurrentUser, (me) => {
    const raw = headers["x-audit-log-reason"]
    if (raw === undefined || raw.trim() === "") return { actorId: me.id, reason: null }
    let reason = raw
    try {
      reason = decodeURIComponent(raw)
    } catch {
      // Not URL-encoded after all.
    }
    return { actorId: me.id, reason: [...reason].slice(0, MAX_REASON).join("") }
  })

const ChannelsHandlers = HttpApiBuilder.group(Api, "channels", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const snowflakes = yield* Snowflakes
    const channels = yield* ChannelLookup
    const dms = yield* Dms
    const holds = legalHoldCheck(yield* SqlClient.SqlClient)
    const catalog = yield* VoiceCatalog

    return handlers
      .handle("list", ({ params }) =>
        Effect.flatMap(CurrentUser, (me) => actors.read(params.guild_id, Channels.listChannels, {}, me.id)))
      .handle("create", ({ params, headers, payload }) =>
        Effect.flatMap(by(headers), (actor) =>
          actors.write(params.guild_id, Channels.createChannel, { channelId: ChannelId.make(snowflakes.next()), request: payload }, actor)))
      .handle("positions", ({ params, headers, payload }) =>
        Effect.flatMap(by(headers), (actor) =>
          Effect.asVoid(actors.write(params.guild_id, ChannelLayout.positionChannels, { items: payload }, actor))))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          return yield* channels.byOwner(params.channel_id, {
            dm: () => dms.view(params.channel_id, me.id),
            guild: (guildId) => actors.read(guildId, Channels.getChannel, { channelId: params.channel_id }, me.id)
          })
        }))
      .handle("update", ({ params, headers, payload }) =>
        Effect.gen(function*() {
          const actor = yield* by(headers)
          return yield* channels.byOwner(params.channel_id, {
            dm: () => dms.update(params.channel_id, actor.actorId, payload),
            guild: (guildId) =>
              Effect.gen(function*() {
                const patch = yield* guildChannelPatch(payload)
                // The guild checks a pinned region against the configured ones, which only this side reads.
                const regions = patch.rtc_region == null ? undefined : (yield* catalog.regions).map(ruleOf)
                const fields = { channelId: params.channel_id, patch, ...(regions === undefined ? {} : { regions }) }
                return yield* actors.write(guildId, Channels.updateChannel, fields, actor)
              })
          })
        }))
      .handle("delete", ({ params, headers }) =>
        Effect.gen(function*() {
          const actor = yield* by(headers)
          // For a DM: closes it (a group DM: leaves it).
          yield* channels.byOwner(params.channel_id, {
            dm: () => dms.close(params.channel_id, actor.actorId),
            guild: (guildId) =>
              holds.refuseHeldIn({ channelId: params.channel_id }).pipe(
                Effect.andThen(actors.write(guildId, Channels.deleteChannel, { channelId: params.channel_id }, actor))
              )
          })
        }))
      .handle("putOverwrite", ({ params, headers, payload }) =>
        Effect.gen(function*() {
          const actor = yield* by(headers)
          const guildId = yield* channels.guildOf(params.channel_id)
          const fields = { channelId: params.channel_id, overwriteId: params.overwrite_id, request: payload }
          yield* actors.write(guildId, ChannelLayout.putOverwrite, fields, actor)
        }))
      .handle("deleteOverwrite", ({ params, headers }) =>
        Effect.gen(function*() {
          const actor = yield* by(headers)
          const guildId = yield* channels.guildOf(params.channel_id)
          const fields = { channelId: params.channel_id, overwriteId: params.overwrite_id }
          yield* actors.write(guildId, ChannelLayout.deleteOverwrite, fields, actor)
        }))
      .handle("rtcRegions", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const guildId = yield* channels.guildOf(params.channel_id)
          const guildFeatures = yield* actors.read(guildId, rtcRegionFeatures, { channelId: params.channel_id }, me.id)
          return regionsFor(yield* catalog.regions, { guildId, guildFeatures, userId: me.id })
        }))
  })))

/** The channel routes, with the channel → guild lookup they route by. */
export const ChannelsHttp = perRequestMiddlewaresOnly(ChannelsHandlers).pipe(Layer.provide([ChannelLookup.layer, Dms.layer]))
