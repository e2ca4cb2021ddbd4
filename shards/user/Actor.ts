import { Duration, Effect } from "effect"
import { Entity } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { LiveActors } from "../LiveActors.ts"
import { User } from "./Protocol.ts"
import type { GuildId } from "../../src/model/Ids.ts"

const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)

/** One user's actor: the ids of their guilds, loaded from Postgres when it starts. */
export const UserActor = (options: { readonly maxIdleTime: Duration.Input }) =>
  User.toLayer(
    Effect.gen(function*() {
      const { entityId: userId } = yield* Entity.CurrentAddress
      const sql = yield* SqlClient.SqlClient
      const live = yield* LiveActors
      const rows = yield* sql<{ guild_id: GuildId }>`SELECT guild_id FROM guild_members WHERE user_id = ${userId}`.pipe(
        Effect.orDie
      )
      const guilds = new Set(rows.map((r) => r.guild_id))
      live.users.add(userId)
      yield* Effect.addFinalizer(() => Effect.sync(() => live.users.delete(userId)))

      return User.of({
        Joined: ({ payload }) => Effect.sync(() => void guilds.add(payload.guildId)),
        Left: ({ payload }) => Effect.sync(() => void guilds.delete(payload.guildId)),
        ListGuilds: ({ payload }) =>
          Effect.sync(() => {
            const sorted = [...guilds].sort(byId)
            const inRange = sorted.filter((id) =>
              (payload.after === undefined || byId(id, payload.after) > 0) &&
              (payload.before === undefined || byId(id, payload.before) < 0)
            )
            // With only `before`, the page is the newest ids before it.
            return payload.before !== undefined && payload.after === undefined
              ? inRange.slice(-payload.limit)
              : inRange.slice(0, payload.limit)
          })
      })
    }),
    { maxIdleTime: options.maxIdleTime }
  )
