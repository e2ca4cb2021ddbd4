import { assert, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { hashOf } from "../../src/media/ContentAddress.ts"
import { TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { MediaServer, memePng } from "../memes/MediaServer.ts"
import { createWebhook, execute, messageIdOf } from "./Support.ts"

/** Only the picture server's own address is allowed: every other internal address stays refused. */
const layers = Layer.mergeAll(TestApi.layerWith({ MEDIA_FETCH_ALLOWED_NETWORKS: "127.0.0.1/32" }), MediaServer.layer)

layer(layers, { timeout: 120_000, excludeTestServices: true })("a webhook post's avatar_url", (it) => {
  it.effect("shows the picture it names, fetched once; a URL that is no usable image leaves the webhook's own", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const pictures = yield* MediaServer
      const owner = yield* api.register()
      const { channelId } = yield* createGuild(owner.token, "Picture Hall")
      const webhook = yield* createWebhook(owner.token, channelId, "Builds")

      const first = yield* execute(webhook, { content: "one", avatar_url: `${pictures.url}/meme.png` })
      messageIdOf(first)
      expect(first.body).toMatchObject({ author: { id: webhook.id, avatar: hashOf(memePng) } })
      const second = yield* execute(webhook, { content: "two", avatar_url: `${pictures.url}/meme.png` })
      expect(second.body).toMatchObject({ author: { avatar: hashOf(memePng) } })
      // Integrations send the same picture with every post: it is fetched once.
      assert.strictEqual(pictures.hits(`${new URL(pictures.url).hostname}/meme.png`), 1)
      const served = yield* Effect.promise(() => fetch(`${api.baseUrl}/media/${hashOf(memePng)}`))
      assert.strictEqual(served.status, 200)

      // Not an image, an internal address the settings do not allow, nothing there: the message still posts.
      for (const url of [`${pictures.url}/notes.txt`, `${pictures.otherUrl}/meme.png`, `${pictures.url}/missing.png`]) {
        const posted = yield* execute(webhook, { content: "still posted", avatar_url: url })
        messageIdOf(posted)
        expect(posted.body).toMatchObject({ author: { id: webhook.id, avatar: null } })
      }
      assert.strictEqual(pictures.hits(`${new URL(pictures.url).hostname}/meme.png`), 1)

      // A wrong token makes the server fetch nothing.
      const wrong = yield* execute({ id: webhook.id, token: "wrong" }, { content: "x", avatar_url: `${pictures.url}/clip.mp4` })
      assert.strictEqual(wrong.status, 404)
      assert.strictEqual(pictures.hits(`${new URL(pictures.url).hostname}/clip.mp4`), 0)
    }))
})
