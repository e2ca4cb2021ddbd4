import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type NotFound, unknown } from "../model/Errors.ts"
import { CarriedId, type GuildId } from "../model/Ids.ts"

/** Entries kept of webhook → guild before the cache starts again (a few MB at most). */
const MAX_CACHED = 100_000

const SNOWFLAKE = /^[0-9]{1,19}$/
const MAX_SNOWFLAKE = 2n ** 63n - 1n

const unknownWebhook = () => unknown("WEBHOOK")

/**
 * Which guild's actor answers for a webhook: the /webhooks/{id} routes do not
 * name the guild. A webhook never changes guild, so what was looked up once
 * stays true; whether it still exists is for the actor to say (its
 * UNKNOWN_WEBHOOK, or UNKNOWN_GUILD once the guild is gone, answered as
 * UNKNOWN_WEBHOOK by `inGuildOf`).
 */
export class WebhookDirectory extends Context.Service<WebhookDirectory, {
  readonly guildOf: (webhookId: string) => Effect.Effect<GuildId, NotFound>
  /** `call` with the webhook's guild; a guild gone since answers UNKNOWN_WEBHOOK. */
  readonly inGuildOf: <A, E, R>(
    webhookId: string,
    call: (guildId: GuildId) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | NotFound, R>
}>()("guildhall/WebhookDirectory") {
  static readonly layer = Layer.effect(
    WebhookDirectory,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const known = new Map<string, GuildId>()

      const guildOf = Effect.fn("WebhookDirectory.guildOf")(function*(webhookId: string) {
        // The executor is handed ids the inbound routes took from their path as they came.
        if (!SNOWFLAKE.test(webhookId) || BigInt(webhookId) > MAX_SNOWFLAKE) return yield* unknownWebhook()
        const cached = known.get(webhookId)
        if (cached !== undefined) return cached
        const rows = yield* sql<{ guild_id: string }>`SELECT guild_id::text AS guild_id FROM webhooks WHERE id = ${webhookId}`.pipe(
          Effect.orDie
        )
        const row = rows[0]
        if (row === undefined) return yield* unknownWebhook()
        if (known.size >= MAX_CACHED) known.clear()
        const guildId = CarriedId.GuildId.make(row.guild_id)
        known.set(webhookId, guildId)
        return guildId
      })

      const inGuildOf = <A, E, R>(webhookId: string, call: (guildId: GuildId) => Effect.Effect<A, E, R>) =>
        Effect.flatMap(guildOf(webhookId), (guildId) =>
          Effect.catchIf(
            call(guildId),
            (error): error is E => typeof error === "object" && error !== null && "code" in error && error.code === "UNKNOWN_GUILD",
            () => Effect.fail(unknownWebhook())
          ))

      return WebhookDirectory.of({ guildOf, inGuildOf })
    })
  )
}
