import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { field, TestApi } from "../support/Api.ts"
import { createGuild, newMember } from "../support/Cast.ts"
import { addBot } from "./Bots.ts"
import { connect, dataOf, gatewayUrl, nextOfType } from "./Client.ts"

/**
 * A bot written against the Fluxer JavaScript SDK: its gateway shard
 * (@fluxerjs/ws) connects to `<url>?v=1&encoding=json` and IDENTIFYs with
 * exactly these fields, `intents: 0` among them, because the production
 * gateway has no intents and hears everything a session may see.
 */
const fluxerIdentify = (token: string) => ({
  op: 2,
  d: { token, intents: 0, properties: { os: process.platform, browser: "fluxerjs", device: "fluxerjs" } }
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("a bot on the Fluxer SDK", (it) => {
  it.effect("IDENTIFY as the SDK sends it: its guild with its own member, then a human's message, reaction and typing", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token, "Fluxer Hall")
      const human = yield* newMember(guildId, Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES | Permission.ADD_REACTIONS)
      const bot = yield* addBot(owner.token, guildId, Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES, "Fluxer Bot")

      const client = yield* connect(`${yield* gatewayUrl(`Bot ${bot.token}`)}?v=1&encoding=json`)
      assert.strictEqual((yield* client.next).op, 10)
      client.send(fluxerIdentify(bot.token))
      expect(dataOf(yield* nextOfType(client, "READY"))).toMatchObject({ user: { id: bot.id, bot: true }, guilds: [{ id: guildId }] })
      // What the SDK's permission checks (canSendMessage) read: the bot's own member and its roles.
      const guild = dataOf(yield* nextOfType(client, "GUILD_CREATE"))
      // A small guild lists every member, the session's own first.
      expect(guild).toMatchObject({ id: guildId, unavailable: false, members: [{ user: { id: bot.id } }, {}, {}] })
      const [own] = guild.members as ReadonlyArray<{ roles: ReadonlyArray<string>; joined_at: string }>
      assert.isAbove(own?.roles.length ?? 0, 0, JSON.stringify(own))

      const posted = yield* api.request("POST", `/channels/${channelId}/messages`, { token: human.token, body: { content: "hi bot" } })
      assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
      const messageId = field(posted.body, "id")
      expect(dataOf(yield* nextOfType(client, "MESSAGE_CREATE"))).toMatchObject({
        id: messageId,
        guild_id: guildId,
        content: "hi bot",
        author: { id: human.userId },
        member: { roles: [human.roleId] }
      })

      const reacted = yield* api.request("PUT", `/channels/${channelId}/messages/${messageId}/reactions/${encodeURIComponent("👍")}/@me`, {
        token: human.token
      })
      assert.strictEqual(reacted.status, 204, JSON.stringify(reacted.body))
      expect(dataOf(yield* nextOfType(client, "MESSAGE_REACTION_ADD"))).toMatchObject({ message_id: messageId, user_id: human.userId })

      const typing = yield* api.request("POST", `/channels/${channelId}/typing`, { token: human.token })
      assert.strictEqual(typing.status, 204, JSON.stringify(typing.body))
      expect(dataOf(yield* nextOfType(client, "TYPING_START"))).toMatchObject({ channel_id: channelId, user_id: human.userId })
    }))
})
