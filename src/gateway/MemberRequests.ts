import { Effect, Option, Schema } from "effect"
import { requestMembers } from "../../shards/guild/operations/GatewayMembers.ts"
import { GuildMemberResponse } from "../model/Guilds.ts"
import { Actors } from "../guilds/Actors.ts"
import { Presences } from "./Presence.ts"
import { Close } from "./Protocol.ts"
import type { Closing, GatewaySession } from "./Session.ts"

/** Members per GUILD_MEMBERS_CHUNK. */
export const CHUNK_SIZE = 1000
/** The most a query may ask for, and the most user ids one request may name. */
const MAX_QUERY_LIMIT = 100
const MAX_USER_IDS = 100

const Snowflake = Schema.String.check(Schema.isPattern(/^\d{1,20}$/))

/** Op 8's data: a name prefix (`query`, with `limit`; "" and 0 is everyone) or `user_ids`. */
const RequestGuildMembers = Schema.Struct({
  // Op 8 keeps its own looser digits check; the brand is GuildId's all the same.
  guild_id: Snowflake.pipe(Schema.brand("GuildId")),
  query: Schema.optional(Schema.String.check(Schema.isMaxLength(100))),
  limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: MAX_QUERY_LIMIT }))),
  presences: Schema.optional(Schema.Boolean),
  user_ids: Schema.optional(Schema.Union([Snowflake, Schema.Array(Snowflake).check(Schema.isMaxLength(MAX_USER_IDS))])),
  nonce: Schema.optional(Schema.String.check(Schema.isMaxLength(32)))
})
const decodeRequest = Schema.decodeUnknownOption(RequestGuildMembers)
const encodeMembers = Schema.encodeSync(Schema.Array(GuildMemberResponse))

const invalid: Closing = { code: Close.DECODE_ERROR, reason: "Invalid REQUEST_GUILD_MEMBERS" }

/**
 * Answers op 8 with GUILD_MEMBERS_CHUNK dispatches of up to CHUNK_SIZE
 * members each, read from the guild actor's memory. A guild the session is
 * not in gets no answer, as on the reference platform.
 */
export const makeMemberRequests = Effect.gen(function*() {
  const actors = yield* Actors
  const presences = yield* Presences

  return (session: GatewaySession, data: unknown): Effect.Effect<Closing | undefined> =>
    Effect.gen(function*() {
      const decoded = decodeRequest(data)
      if (Option.isNone(decoded)) return invalid
      const request = decoded.value
      if ((request.query === undefined) === (request.user_ids === undefined)) return invalid
      if (!session.guilds.has(request.guild_id)) return undefined
      const userIds = typeof request.user_ids === "string" ? [request.user_ids] : request.user_ids
      const found = yield* actors.read(
        request.guild_id,
        requestMembers,
        { query: request.query, userIds, limit: request.limit ?? 0 },
        session.userId
      ).pipe(Effect.option)
      if (Option.isNone(found)) return undefined
      const members = encodeMembers(found.value)
      const guildId = request.guild_id
      const known = new Set(members.map((m) => m.user.id))
      const notFound = userIds === undefined ? undefined : userIds.filter((id) => !known.has(id))
      const count = Math.max(1, Math.ceil(members.length / CHUNK_SIZE))
      for (let index = 0; index < count; index++) {
        const chunk = members.slice(index * CHUNK_SIZE, (index + 1) * CHUNK_SIZE)
        const online = request.presences === true ? presences.of(chunk.map((m) => m.user.id)) : undefined
        const head = JSON.stringify({
          guild_id: guildId,
          members: chunk,
          chunk_index: index,
          chunk_count: count,
          ...(notFound !== undefined && index === 0 ? { not_found: notFound } : {}),
          ...(request.nonce === undefined ? {} : { nonce: request.nonce })
        })
        // The presences are JSON already: spliced in rather than parsed again.
        const json = online === undefined ? head : `${head.slice(0, -1)},"presences":[${online.join(",")}]}`
        session.dispatch({ type: "GUILD_MEMBERS_CHUNK", data: json })
      }
      return undefined
    })
})
