import { assert, expect, layer } from "@effect/vitest"
import { Client, Events, GatewayIntentBits, type Message, PermissionFlagsBits } from "discord.js"
import { Deferred, Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { TestApi } from "../support/Api.ts"
import { createGuild, newMember } from "../support/Cast.ts"
import { addBot } from "./Bots.ts"

const BOT_PERMISSIONS = Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES | Permission.READ_MESSAGE_HISTORY |
  Permission.ADD_REACTIONS | Permission.MANAGE_ROLES

/** Waits for `deferred`, failing the test with `what` after a while (discord.js swallows what it cannot read). */
const within = <A>(deferred: Deferred.Deferred<A>, what: string) =>
  Deferred.await(deferred).pipe(
    Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die(new Error(`discord.js saw no ${what}`)) })
  )

/**
 * The full discord.js client, unmodified, as a bot author uses it: it builds
 * its guilds, members, roles and messages from what this server sends, so a
 * field it reads and we leave out shows here as a null or an unavailable guild.
 */
layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("the discord.js client", (it) => {
  it.effect("a bot logs in, sees its guild with its own member, hears a human, edits, reacts, makes a role, disconnects", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token, "Client Hall")
      const human = yield* newMember(guildId, Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES)
      const bot = yield* addBot(owner.token, guildId, BOT_PERMISSIONS)

      const client = new Client({
        intents: [
          GatewayIntentBits.Guilds,
          GatewayIntentBits.GuildMessages,
          GatewayIntentBits.GuildMessageReactions,
          GatewayIntentBits.MessageContent
        ],
        rest: { api: api.baseUrl, version: "1" },
        ws: { version: 1 }
      })
      const errors: Array<unknown> = []
      client.on(Events.Error, (error) => errors.push(error))
      client.on(Events.ShardError, (error) => errors.push(error))
      const ready = yield* Deferred.make<void>()
      const heard = yield* Deferred.make<Message>()
      client.once(Events.ClientReady, () => Deferred.doneUnsafe(ready, Effect.void))
      client.on(Events.MessageCreate, (message) => {
        if (message.author.id === human.userId) Deferred.doneUnsafe(heard, Effect.succeed(message))
      })
      yield* Effect.acquireRelease(
        Effect.promise(() => client.login(bot.token)),
        () => Effect.promise(() => client.destroy())
      )
      yield* within(ready, "ready")

      // READY listed the guild as unavailable; GUILD_CREATE made it available, with the bot's own member.
      const guild = client.guilds.cache.get(guildId)
      assert.isDefined(guild)
      if (guild === undefined) return
      assert.isTrue(guild.available)
      assert.strictEqual(guild.name, "Client Hall")
      const me = guild.members.me
      assert.isNotNull(me, "guild.members.me")
      if (me === null) return
      assert.strictEqual(me.id, bot.id)
      assert.isNotNull(me.joinedTimestamp)
      const channel = guild.channels.cache.get(channelId)
      assert.isDefined(channel)
      if (channel === undefined || !channel.isTextBased()) return assert.fail("the guild's text channel")
      assert.isTrue(me.permissionsIn(channel).has(PermissionFlagsBits.SendMessages))

      // A human's message comes with its member.
      const posted = yield* api.request("POST", `/channels/${channelId}/messages`, { token: human.token, body: { content: "hello bot" } })
      assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
      const message = yield* within(heard, "messageCreate")
      assert.strictEqual(message.content, "hello bot")
      assert.isNotNull(message.member, "message.member")
      assert.strictEqual(message.member?.id, human.userId)
      assert.deepStrictEqual(message.member?.roles.cache.has(human.roleId), true)

      // The bot answers, edits its answer and reacts to the human.
      const sent = yield* Effect.promise(() => channel.send("first draft"))
      const edited = yield* Effect.promise(() => sent.edit("final answer"))
      assert.strictEqual(edited.content, "final answer")
      assert.isNotNull(edited.editedTimestamp)
      const reaction = yield* Effect.promise(() => message.react("👍"))
      assert.strictEqual(reaction.emoji.name, "👍")
      assert.isTrue(reaction.me)

      // A role with a colour, hoisted, as discord.js sends it (`colors`).
      const role = yield* Effect.promise(() =>
        guild.roles.create({ name: "Crew", colors: { primaryColor: 0x3498db }, hoist: true })
      )
      expect({ name: role.name, color: role.colors?.primaryColor ?? role.color, hoist: role.hoist }).toEqual({ name: "Crew", color: 0x3498db, hoist: true })

      yield* Effect.promise(() => client.destroy())
      assert.isFalse(client.isReady())
      assert.deepStrictEqual(errors, [])
    }))
})
