import { assert, expect } from "@effect/vitest"
import { Effect } from "effect"
import { MessageFlag } from "../../src/model/Messages.ts"
import { Permission } from "../../src/model/Permissions.ts"
import { dataOf, type GatewayClient, identified, nextOfType } from "../gateway/Client.ts"
import { dataUri, png } from "../media/Fixtures.ts"
import { layerWithMedia } from "../media/MediaLayer.ts"
import { fieldCode, guildWithChannel, memberWith } from "../messages/Fixtures.ts"
import { payload, postHugeUpload, postMultipart } from "../messages/Multipart.ts"
import { expectError, field, type Reply, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { ok, openDm, request, type User, user } from "./Fixtures.ts"

const next = (client: GatewayClient, type: string) => Effect.map(nextOfType(client, type), dataOf)

const invalid = (reply: Reply, code: string) => {
  expectError(reply, 400, "INVALID_FORM_BODY")
  assert.strictEqual(fieldCode(reply), code, JSON.stringify(reply.body))
}

const post = (token: string, channelId: string, body: unknown) => request("POST", `/channels/${channelId}/messages`, token, body)
const forwardOf = (channelId: string, messageId: string, extra: Record<string, unknown> = {}) => ({
  message_reference: { type: 1, channel_id: channelId, message_id: messageId, ...extra }
})

const text = (name: string, value: string, filename = `${name}.txt`) => ({ name, filename, data: Buffer.from(value), type: "text/plain" })

interface Attachment {
  readonly id: string
  readonly filename: string
  readonly url: string
}
const attachmentsOf = (body: unknown): ReadonlyArray<Attachment> => {
  const attachments = typeof body === "object" && body !== null && "attachments" in body ? body.attachments : undefined
  assert.isArray(attachments, JSON.stringify(body))
  return attachments as ReadonlyArray<Attachment>
}

/** A sticker pack of `owner`'s with one sticker: the sticker's id. */
const packSticker = (owner: User, name: string) =>
  Effect.gen(function*() {
    const pack = ok(yield* request("POST", "/packs/sticker", owner.token, { name: "Mine" }))
    const sticker = yield* request("POST", `/packs/stickers/${field(pack, "id")}`, owner.token, { name, image: dataUri(png(160, 160)) })
    return field(ok(sticker), "id")
  })

layerWithMedia("dm-messages")("forwards, stickers and files in DMs over HTTP", (it) => {
  it.effect("a forward into a DM carries a snapshot of a guild message the sender reads; DM messages forward too", () =>
    Effect.gen(function*() {
      const { owner, guildId, channelId: guildChannel } = yield* guildWithChannel
      const bob = yield* user
      const carol = yield* user
      const { client: bobGateway } = yield* identified(bob.token)
      const original = field(ok(yield* post(owner.token, guildChannel, { content: "guild news", embeds: [{ title: "headline" }] })), "id")
      const dm = yield* openDm(owner, bob)

      const forward = ok(yield* post(owner.token, dm, forwardOf(guildChannel, original)))
      const snapshot = { content: "guild news", embeds: [{ type: "rich", title: "headline" }], type: 0 }
      const reference = { type: 1, channel_id: guildChannel, message_id: original, guild_id: guildId }
      expect(forward).toMatchObject({ channel_id: dm, type: 0, content: "", message_reference: reference, message_snapshots: [snapshot] })
      const forwardId = field(forward, "id")
      expect(yield* next(bobGateway, "MESSAGE_CREATE")).toMatchObject({ id: forwardId, message_reference: reference, message_snapshots: [snapshot] })
      // Stored as sent: Bob reads it back, though he is not in the guild.
      expect(ok(yield* request("GET", `/channels/${dm}/messages/${forwardId}`, bob.token))).toMatchObject({ message_snapshots: [snapshot] })
      invalid(yield* request("PATCH", `/channels/${dm}/messages/${forwardId}`, owner.token, { content: "x" }), "MESSAGES_WITH_SNAPSHOTS_CANNOT_BE_EDITED")

      // A DM's message goes on to another DM, and into a guild channel, by a recipient of it.
      const fromBob = field(ok(yield* post(bob.token, dm, { content: "from bob" })), "id")
      const other = yield* openDm(owner, carol)
      expect(ok(yield* post(owner.token, other, forwardOf(dm, fromBob)))).toMatchObject({
        message_reference: { type: 1, channel_id: dm, message_id: fromBob, guild_id: null },
        message_snapshots: [{ content: "from bob" }]
      })
      expect(ok(yield* post(owner.token, guildChannel, forwardOf(dm, fromBob)))).toMatchObject({
        message_reference: { type: 1, channel_id: dm, message_id: fromBob },
        message_snapshots: [{ content: "from bob" }]
      })
    }))

  it.effect("forwards into a DM: bad input, and sources the sender may not read", () =>
    Effect.gen(function*() {
      const { owner, guildId, channelId: guildChannel } = yield* guildWithChannel
      const bob = yield* user
      const carol = yield* user
      const original = field(ok(yield* post(owner.token, guildChannel, { content: "members only" })), "id")
      const dm = yield* openDm(owner, bob)

      invalid(yield* post(owner.token, dm, { content: "and more", ...forwardOf(guildChannel, original) }), "FORWARD_MESSAGES_CANNOT_CONTAIN_CONTENT")
      invalid(yield* post(owner.token, dm, { message_reference: { type: 1, message_id: original } }), "FORWARD_REFERENCE_REQUIRES_CHANNEL_AND_MESSAGE")
      invalid(yield* post(owner.token, dm, forwardOf(guildChannel, original, { guild_id: "1" })), "GUILD_ID_MUST_MATCH_REFERENCED_MESSAGE")
      invalid(yield* post(owner.token, dm, forwardOf(guildChannel, "12x")), "INVALID_SNOWFLAKE_FORMAT")
      expectError(yield* post(owner.token, dm, forwardOf(guildChannel, "4242")), 404, "UNKNOWN_MESSAGE")
      expectError(yield* post(owner.token, dm, forwardOf("4242", original)), 404, "UNKNOWN_CHANNEL")

      // Bob is not in the guild; a member who cannot read its history may not copy it out either.
      const bobAndCarol = yield* openDm(bob, carol)
      expectError(yield* post(bob.token, bobAndCarol, forwardOf(guildChannel, original)), 403, "MISSING_ACCESS")
      const blind = yield* memberWith(guildId, Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES)
      const blindDm = yield* openDm(blind, carol)
      expectError(yield* post(blind.token, blindDm, forwardOf(guildChannel, original)), 403, "MISSING_PERMISSIONS")
      // Carol is not in the owner's DM with Bob: she neither copies from it nor forwards into it.
      const secret = field(ok(yield* post(owner.token, dm, { content: "between us" })), "id")
      expectError(yield* post(carol.token, bobAndCarol, forwardOf(dm, secret)), 403, "MISSING_ACCESS")
      const carolsOwn = field(ok(yield* post(carol.token, bobAndCarol, { content: "carol's" })), "id")
      expectError(yield* post(carol.token, dm, forwardOf(bobAndCarol, carolsOwn)), 403, "MISSING_ACCESS")

      const api = yield* TestApi
      const rows = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE channel_id IN ($1, $2) AND reference_type = 1", [dm, bobAndCarol])
      assert.deepStrictEqual(rows, [{ n: 0 }])
    }))

  it.effect("stickers in DMs: pack stickers go, a guild's own stickers need premium", () =>
    Effect.gen(function*() {
      const { owner, guildId, channelId: guildChannel } = yield* guildWithChannel
      const bob = yield* user
      const carol = yield* user
      const { client: bobGateway } = yield* identified(bob.token)
      const dm = yield* openDm(owner, bob)
      const hello = yield* packSticker(owner, "hello")

      const sent = ok(yield* post(owner.token, dm, { sticker_ids: [hello] }))
      const stickers = [{ id: hello, name: "hello", animated: false }]
      expect(sent).toMatchObject({ channel_id: dm, content: "", stickers })
      expect(yield* next(bobGateway, "MESSAGE_CREATE")).toMatchObject({ id: field(sent, "id"), stickers })
      expect(ok(yield* request("GET", `/channels/${dm}/messages/${field(sent, "id")}`, bob.token))).toMatchObject({ stickers })

      const guildSticker = field(
        ok(yield* request("POST", `/guilds/${guildId}/stickers`, owner.token, { name: "house", image: dataUri(png(160, 160)) })),
        "id"
      )
      const premium = yield* post(owner.token, dm, { sticker_ids: [hello, guildSticker] })
      invalid(premium, "CUSTOM_STICKERS_IN_DMS_REQUIRE_PREMIUM")
      expect(premium.body).toMatchObject({ errors: [{ path: "sticker_ids.1" }] })
      // At home in its guild it goes.
      expect(ok(yield* post(owner.token, guildChannel, { sticker_ids: [guildSticker] }))).toMatchObject({ stickers: [{ id: guildSticker, name: "house" }] })

      invalid(yield* post(owner.token, dm, { sticker_ids: ["4242"] }), "CUSTOM_STICKER_NOT_FOUND")
      // Bob has not got the owner's pack.
      invalid(yield* post(bob.token, dm, { sticker_ids: [hello] }), "CUSTOM_STICKER_NOT_FOUND")
      expectError(yield* post(owner.token, dm, { sticker_ids: [hello, hello, hello, hello] }), 400, "INVALID_FORM_BODY")
      invalid(yield* post(owner.token, dm, { sticker_ids: ["nope"] }), "INVALID_SNOWFLAKE_FORMAT")
      invalid(yield* post(owner.token, dm, { flags: MessageFlag.VOICE_MESSAGE, sticker_ids: [hello] }), "VOICE_MESSAGES_CANNOT_HAVE_STICKERS")
      expectError(yield* post(carol.token, dm, { sticker_ids: [hello] }), 403, "MISSING_ACCESS")
    }))

  it.effect("a multipart create in a DM: files stored, served back, told to the recipient; attachments deleted", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const alice = yield* user
      const bob = yield* user
      const carol = yield* user
      const { client: bobGateway } = yield* identified(bob.token)
      const dm = yield* openDm(alice, bob)
      const image = png(3, 2)
      const created = yield* postMultipart(alice.token, dm, [
        payload({ content: "look", attachments: [{ id: 0, description: "a grey square" }, { id: 1 }] }),
        { name: "files[0]", filename: "grey.png", data: image, type: "image/png" },
        text("files[1]", "hello file", "notes.txt")
      ])
      const body = ok(created)
      expect(body).toMatchObject({
        channel_id: dm,
        content: "look",
        attachments: [
          { filename: "grey.png", description: "a grey square", content_type: "image/png", size: image.length, width: 3, height: 2 },
          { filename: "notes.txt", size: 10 }
        ]
      })
      const id = field(body, "id")
      const [picture, notes] = attachmentsOf(body)
      expect(yield* next(bobGateway, "MESSAGE_CREATE")).toMatchObject({ id, attachments: [{ filename: "grey.png" }, { filename: "notes.txt" }] })
      const served = yield* Effect.promise(() => fetch(`${api.baseUrl}${new URL(picture?.url ?? "").pathname}`))
      assert.strictEqual(served.status, 200)
      assert.strictEqual(served.headers.get("content-type"), "image/png")
      assert.deepStrictEqual(Buffer.from(yield* Effect.promise(() => served.arrayBuffer())), image)
      assert.deepStrictEqual(attachmentsOf(ok(yield* request("GET", `/channels/${dm}/messages/${id}`, bob.token))).map((a) => a.filename), [
        "grey.png",
        "notes.txt"
      ])

      // Only the author removes an attachment (nobody moderates a DM); outsiders not at all.
      const notesPath = `/channels/${dm}/messages/${id}/attachments/${notes?.id}`
      expectError(yield* request("DELETE", notesPath, bob.token), 403, "MISSING_PERMISSIONS")
      expectError(yield* request("DELETE", notesPath, carol.token), 403, "MISSING_ACCESS")
      invalid(yield* request("DELETE", `/channels/${dm}/messages/${id}/attachments/4242`, alice.token), "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE")
      invalid(yield* request("PATCH", `/channels/${dm}/messages/${id}`, alice.token, { attachments: [{ id: "4242" }] }), "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE")
      ok(yield* request("DELETE", notesPath, alice.token), 204)
      expect(yield* next(bobGateway, "MESSAGE_UPDATE")).toMatchObject({ id, attachments: [{ filename: "grey.png" }] })
      assert.deepStrictEqual(attachmentsOf(ok(yield* request("GET", `/channels/${dm}/messages/${id}`, bob.token))).map((a) => a.filename), ["grey.png"])
      invalid(yield* request("DELETE", notesPath, alice.token), "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE")

      // A message of one file and nothing else goes with its file.
      const single = ok(yield* postMultipart(alice.token, dm, [payload({ attachments: [{ id: 0 }] }), text("files[0]", "x")]))
      const singleId = field(single, "id")
      const [only] = attachmentsOf(single)
      ok(yield* request("DELETE", `/channels/${dm}/messages/${singleId}/attachments/${only?.id}`, alice.token), 204)
      expect(yield* next(bobGateway, "MESSAGE_DELETE")).toEqual({ id: singleId, channel_id: dm, content: "", author_id: alice.userId })
      expectError(yield* request("GET", `/channels/${dm}/messages/${singleId}`, bob.token), 404, "UNKNOWN_MESSAGE")
    }))

  it.effect("multipart in DMs: the guild's validation codes and size limits; outsiders and blocked senders refused", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const alice = yield* user
      const bob = yield* user
      const carol = yield* user
      const dm = yield* openDm(alice, bob)
      const send = (parts: Parameters<typeof postMultipart>[2], token = alice.token) => postMultipart(token, dm, parts)
      const meta0 = payload({ attachments: [{ id: 0 }] })
      invalid(yield* send([text("files[0]", "x")]), "PAYLOAD_JSON_REQUIRED_FOR_MULTIPART")
      invalid(yield* send([{ name: "payload_json", value: "{not json" }]), "INVALID_JSON_IN_PAYLOAD_JSON")
      invalid(yield* send([meta0, text("file", "x")]), "INVALID_FILE_FIELD_NAME")
      invalid(yield* send([payload({ content: "x" }), text("files[0]", "x")]), "ATTACHMENTS_METADATA_REQUIRED_WHEN_UPLOADING")
      invalid(yield* send([payload({ content: "x", attachments: [{ id: 0 }] })]), "ATTACHMENT_METADATA_WITHOUT_FILES")
      invalid(yield* send([meta0, text("files[0]", "x"), text("files[1]", "y")]), "NO_METADATA_FOR_FILE")
      invalid(yield* send([meta0, text("files[0]", "x", "bad|name.txt")]), "FILENAME_INVALID_CHARACTERS")
      invalid(yield* send([payload({ flags: MessageFlag.VOICE_MESSAGE, attachments: [{ id: 0, duration: 3, waveform: "AAAA" }] }), text("files[0]", "words")]), "VOICE_MESSAGES_ATTACHMENT_MUST_BE_AUDIO")
      invalid(yield* post(alice.token, dm, { content: "x", attachments: [{ id: 0 }] }), "NO_FILE_FOR_ATTACHMENT_METADATA")
      const huge = yield* postHugeUpload(alice.token, dm, 30)
      assert.strictEqual(huge.status, 413, JSON.stringify(huge.body))
      expect(huge.body).toMatchObject({ code: "FILE_SIZE_TOO_LARGE" })

      const files = [payload({ content: "x", attachments: [{ id: 0 }] }), text("files[0]", "x")]
      expectError(yield* send(files, carol.token), 403, "MISSING_ACCESS")
      expectError(yield* postMultipart(alice.token, "4242", files), 404, "UNKNOWN_CHANNEL")
      ok(yield* request("PUT", `/users/@me/relationships/${alice.userId}`, bob.token, { type: 2 }))
      expectError(yield* send(files), 400, "CANNOT_SEND_MESSAGES_TO_USER")
      const rows = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE channel_id = $1", [dm])
      assert.deepStrictEqual(rows, [{ n: 0 }])
    }))
})
