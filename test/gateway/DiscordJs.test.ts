import { assert, expect, layer } from "@effect/vitest"
import { REST } from "@discordjs/rest"
import { CompressionMethod, WebSocketManager, WebSocketShardEvents } from "@discordjs/ws"
import { Deferred, Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { addBot } from "./Bots.ts"

/** GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT. */
const INTENTS = 1 | (1 << 9) | (1 << 15)

interface Seen {
  readonly t: string
  readonly d: unknown
}

/**
 * The gateway as a library we did not write drives it: discord.js's REST
 * client and WebSocketManager, pointed at this server with API version 1.
 * What it needs of us (GET /gateway/bot, the connection query, IDENTIFY with
 * intents and shard, READY, dispatches) is what bots in the wild need.
 */
const runBot = (compression: CompressionMethod | null) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const owner = yield* api.register()
    const { guildId, channelId } = yield* createGuild(owner.token, "Library Hall")
    const bot = yield* addBot(owner.token, guildId, Permission.SEND_MESSAGES | Permission.VIEW_CHANNEL)

    const rest = new REST({ api: api.baseUrl, version: "1" }).setToken(bot.token)
    const manager = new WebSocketManager({ token: bot.token, intents: INTENTS, rest, version: "1", compression })
    const dispatches: Array<Seen> = []
    const ready = yield* Deferred.make<unknown>()
    const created = yield* Deferred.make<unknown>()
    const posted = yield* Deferred.make<unknown>()
    manager.on(WebSocketShardEvents.Ready, (data) => Deferred.doneUnsafe(ready, Effect.succeed(data)))
    manager.on(WebSocketShardEvents.Dispatch, (payload) => {
      dispatches.push({ t: payload.t, d: payload.d })
      if (payload.t === "GUILD_CREATE") Deferred.doneUnsafe(created, Effect.succeed(payload.d))
      if (payload.t === "MESSAGE_CREATE") Deferred.doneUnsafe(posted, Effect.succeed(payload.d))
    })
    yield* Effect.acquireRelease(
      Effect.promise(() => manager.connect()),
      () => Effect.promise(async () => manager.destroy())
    )
    const within = <A>(deferred: Deferred.Deferred<A>, what: string) =>
      Deferred.await(deferred).pipe(
        Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die(new Error(`no ${what}: ${JSON.stringify(dispatches)}`)) })
      )
    expect(yield* within(ready, "READY")).toMatchObject({ v: 1, user: { id: bot.id, bot: true }, guilds: [{ id: guildId }] })
    expect(yield* within(created, "GUILD_CREATE")).toMatchObject({ id: guildId, name: "Library Hall" })

    const message = yield* Effect.promise(() =>
      rest.post(`/channels/${channelId}/messages`, { body: { content: "hello from discord.js" } })
    )
    expect(message).toMatchObject({ channel_id: channelId, content: "hello from discord.js" })
    expect(yield* within(posted, "MESSAGE_CREATE")).toMatchObject({
      channel_id: channelId,
      guild_id: guildId,
      content: "hello from discord.js",
      author: { id: bot.id }
    })
  })

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("discord.js against the gateway", (it) => {
  it.effect("a bot made by the OAuth2 endpoints connects, gets READY and GUILD_CREATE, and hears a message it posts", () =>
    runBot(null))

  it.effect("the same over a zlib-stream compressed connection", () => runBot(CompressionMethod.ZlibNative))
})
