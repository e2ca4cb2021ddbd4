import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { jwtVerify } from "jose"
import { randomBytes } from "node:crypto"
import { Permission } from "../../src/model/Permissions.ts"
import { TestApi } from "../support/Api.ts"
import { cast, setEveryone } from "../support/Cast.ts"
import { dataOf, type GatewayClient, identified, nextMatching, nextOfType } from "./Client.ts"

const api = TestApi.layerWith({ VOICE_SECRET_KEY: randomBytes(32).toString("base64") })

const admin = (path: string, body: unknown) =>
  Effect.gen(function*() {
    const t = yield* TestApi
    const reply = yield* t.request("POST", path, { token: `Admin ${t.adminKey}`, body })
    assert.strictEqual(reply.status, 200, `${path}: ${JSON.stringify(reply.body)}`)
  })

const region = (id: string, extra: Record<string, unknown> = {}) =>
  admin("/admin/voice/regions/create", { id, name: id, emoji: "🎙️", latitude: 0, longitude: 0, ...extra })
const secretOf = (serverId: string) => `secret-of-${serverId}`
const server = (regionId: string, serverId: string, extra: Record<string, unknown> = {}) =>
  admin("/admin/voice/servers/create", {
    region_id: regionId,
    server_id: serverId,
    endpoint: `wss://${serverId}.media.example.test`,
    api_key: `key-${serverId}`,
    api_secret: secretOf(serverId),
    ...extra
  })

/** A voice channel of the guild (owner's token); its id. */
const voiceChannel = (token: string, guildId: string, extra: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const t = yield* TestApi
    const reply = yield* t.request("POST", `/guilds/${guildId}/channels`, { token, body: { type: 2, name: "Talk", ...extra } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return (reply.body as { id: string }).id
  })

/** A session that has its guild; op 4 into `channelId`; the VOICE_SERVER_UPDATE it gets. */
const joinAndHear = (token: string, guildId: string, channelId: string) =>
  Effect.gen(function*() {
    const { client } = yield* identified(token)
    yield* nextMatching(client, "GUILD_CREATE", (d) => typeof d === "object" && d !== null && "id" in d && d.id === guildId)
    return yield* joinAgain(client, guildId, channelId)
  })

const joinAgain = (client: GatewayClient, guildId: string, channelId: string) =>
  Effect.gen(function*() {
    client.send({ op: 4, d: { guild_id: guildId, channel_id: channelId, self_mute: false, self_deaf: false } })
    return dataOf(yield* nextOfType(client, "VOICE_SERVER_UPDATE"))
  })

/** The token verified with the server's secret (signature, issuer, times); its claims. */
const verified = (token: unknown, serverId: string) =>
  Effect.promise(async () => {
    if (typeof token !== "string") throw new Error(`no token: ${String(token)}`)
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(secretOf(serverId)), {
      issuer: `key-${serverId}`,
      algorithms: ["HS256"]
    })
    expect(protectedHeader.alg).toBe("HS256")
    return payload as Record<string, unknown> & { video: Record<string, unknown> }
  })

layer(api, { timeout: 120_000, excludeTestServices: true })("voice servers on op 4", (it) => {
  it.effect("with no server configured the joining session is told so: VOICE_SERVER_UPDATE with a null endpoint", () =>
    Effect.gen(function*() {
      const { owner, guildId } = yield* cast()
      const channelId = yield* voiceChannel(owner.token, guildId)
      expect(yield* joinAndHear(owner.token, guildId, channelId)).toEqual({ token: "", guild_id: guildId, endpoint: null })
      // A region without servers (or only inactive ones) is no better.
      yield* region("empty", { is_default: true })
      yield* server("empty", "off-1", { is_active: false })
      expect(yield* joinAndHear(owner.token, guildId, channelId)).toMatchObject({ endpoint: null })
    }))

  it.effect("a join gets the server of its region with a LiveKit token signed by that server's secret, granting what SPEAK and STREAM do", () =>
    Effect.gen(function*() {
      const { owner, member, guildId } = yield* cast()
      // Where each join should land: the pinned region when the caller may use it, else the default's active server.
      yield* region("main", { is_default: true })
      yield* server("main", "main-off", { is_active: false })
      yield* server("main", "main-on")
      yield* server("main", "main-vip", { vip_only: true })
      yield* region("private", { allowed_user_ids: [owner.userId] })
      yield* server("private", "private-1")
      yield* region("vip", { vip_only: true })
      yield* server("vip", "vip-1")

      const lounge = yield* voiceChannel(owner.token, guildId)
      const pinned = yield* voiceChannel(owner.token, guildId)
      const vipRoom = yield* voiceChannel(owner.token, guildId)
      const t = yield* TestApi
      assert.strictEqual((yield* t.request("PATCH", `/channels/${pinned}`, { token: owner.token, body: { rtc_region: "private" } })).status, 200)
      // Pinned to VIP while the guild was VIP; it stopped being one since.
      yield* admin("/admin/guilds/update-features", { guild_id: guildId, add_features: ["VIP_VOICE"] })
      assert.strictEqual((yield* t.request("PATCH", `/channels/${vipRoom}`, { token: owner.token, body: { rtc_region: "vip" } })).status, 200)
      yield* admin("/admin/guilds/update-features", { guild_id: guildId, remove_features: ["VIP_VOICE"] })

      // The owner (every permission) in the channel pinned to a region open to them alone.
      const ownerUpdate = yield* joinAndHear(owner.token, guildId, pinned)
      expect(ownerUpdate).toMatchObject({ guild_id: guildId, endpoint: "wss://private-1.media.example.test" })
      const claims = yield* verified(ownerUpdate.token, "private-1")
      const now = Date.now() / 1000
      expect(claims).toMatchObject({
        iss: "key-private-1",
        sub: owner.userId,
        video: {
          room: `guild_${guildId}_channel_${pinned}`,
          roomJoin: true,
          canPublish: true,
          canSubscribe: true,
          canPublishSources: ["microphone", "camera", "screen_share", "screen_share_audio"]
        }
      })
      expect(typeof claims.name).toBe("string")
      expect(claims.nbf).toBeLessThanOrEqual(now)
      expect(claims.exp).toBeGreaterThan(now)
      // Not signed with another server's secret.
      const wrong = yield* Effect.promise(() =>
        jwtVerify(String(ownerUpdate.token), new TextEncoder().encode(secretOf("main-on"))).then(() => "accepted", () => "refused"))
      expect(wrong).toBe("refused")

      // A member without SPEAK (nor STREAM), in an unpinned channel: the default region's active, non-VIP server; listen only.
      yield* setEveryone(guildId, Permission.VIEW_CHANNEL | Permission.CONNECT)
      const memberUpdate = yield* joinAndHear(member.token, guildId, lounge)
      expect(memberUpdate).toMatchObject({ endpoint: "wss://main-on.media.example.test" })
      const listener = yield* verified(memberUpdate.token, "main-on")
      expect(listener).toMatchObject({
        sub: member.userId,
        video: { room: `guild_${guildId}_channel_${lounge}`, roomJoin: true, canPublish: false, canSubscribe: true, canPublishSources: [] }
      })
      // The private region is not theirs: that channel's media go to the default region instead.
      expect(yield* joinAndHear(member.token, guildId, pinned)).toMatchObject({ endpoint: "wss://main-on.media.example.test" })
      // Nor is the VIP one any more.
      expect(yield* joinAndHear(member.token, guildId, vipRoom)).toMatchObject({ endpoint: "wss://main-on.media.example.test" })

      // SPEAK without STREAM: the microphone only.
      yield* setEveryone(guildId, Permission.VIEW_CHANNEL | Permission.CONNECT | Permission.SPEAK)
      const speaker = yield* verified((yield* joinAndHear(member.token, guildId, lounge)).token, "main-on")
      expect(speaker.video).toMatchObject({ canPublish: true, canPublishSources: ["microphone"] })

      // A rotated secret signs the next token.
      yield* admin("/admin/voice/servers/update", { region_id: "main", server_id: "main-on", api_secret: "rotated" })
      const rotated = yield* joinAndHear(member.token, guildId, lounge)
      const check = yield* Effect.promise(() =>
        jwtVerify(String(rotated.token), new TextEncoder().encode("rotated")).then(() => "accepted", () => "refused"))
      expect(check).toBe("accepted")
    }))
})
