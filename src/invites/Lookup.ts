import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import type { GuildId } from "../model/Ids.ts"

const CODE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const CODE_LENGTH = 8

/** A random URL-safe code: 8 of 62 characters (about 47 bits), unbiased. */
export const randomInviteCode = (): string => {
  let code = ""
  while (code.length < CODE_LENGTH) {
    for (const byte of randomBytes(CODE_LENGTH * 2)) {
      // 248 = 4 * 62: bytes above it would favour the first characters.
      if (byte < 248 && code.length < CODE_LENGTH) code += CODE_ALPHABET[byte % 62]
    }
  }
  return code
}

/**
 * Which guild a route that does not name one is about: an invite code (or a
 * vanity URL) or a channel id. Postgres holds what the guild actors committed.
 */
export class InviteLookup extends Context.Service<InviteLookup, {
  readonly guildOfInvite: (code: string) => Effect.Effect<GuildId | undefined>
  readonly guildOfChannel: (channelId: string) => Effect.Effect<GuildId | undefined>
  /** A fresh code no guild invite, pack invite or vanity URL uses yet. */
  readonly newCode: Effect.Effect<string>
}>()("guildhall/InviteLookup") {
  static readonly layer = Layer.effect(
    InviteLookup,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const guildOfInvite = Effect.fn("InviteLookup.guildOfInvite")((code: string) =>
        sql<{ guild_id: GuildId }>`
          SELECT guild_id::text AS guild_id FROM guild_invites WHERE code = ${code}
          UNION ALL SELECT id::text FROM guilds WHERE vanity_url_code = ${code} LIMIT 1`.pipe(
          Effect.map((rows) => rows[0]?.guild_id),
          Effect.orDie
        ))
      const guildOfChannel = Effect.fn("InviteLookup.guildOfChannel")((channelId: string) =>
        sql<{ guild_id: GuildId | null }>`SELECT guild_id::text AS guild_id FROM channels WHERE id = ${channelId}`.pipe(
          Effect.map((rows) => rows[0]?.guild_id ?? undefined),
          Effect.orDie
        ))
      const isTaken = (code: string) =>
        sql`SELECT 1 FROM guild_invites WHERE code = ${code} UNION ALL SELECT 1 FROM guilds WHERE vanity_url_code = ${code}
            UNION ALL SELECT 1 FROM pack_invites WHERE code = ${code} LIMIT 1`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
      // A clash is all but impossible; the primary key would refuse one that raced past this check.
      const newCode: Effect.Effect<string> = Effect.suspend(() => {
        const code = randomInviteCode()
        return Effect.flatMap(isTaken(code), (taken) => (taken ? newCode : Effect.succeed(code)))
      })
      return InviteLookup.of({
        guildOfInvite,
        guildOfChannel,
        newCode: newCode.pipe(Effect.withSpan("InviteLookup.newCode"))
      })
    })
  )
}
