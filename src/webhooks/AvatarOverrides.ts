import { Context, Duration, Effect, Layer } from "effect"
import { inspectImage } from "../media/Images.ts"
import { MediaStore } from "../media/MediaStore.ts"
import { RemoteFetch } from "../media/RemoteFetch.ts"
import { RecentAnswers } from "../platform/RecentAnswers.ts"
import { WEBHOOK_AVATARS } from "./Avatars.ts"

/** Pictures an integration names are few and sent with every post: each is fetched once in this long. */
const REMEMBERED_MS = 60 * 60 * 1000
const REMEMBERED = 1_000
/** A slow picture host delays the post this long at most; then the webhook's own picture shows. */
const FETCH_CAP = Duration.seconds(3)

/**
 * The picture of an execute's `avatar_url`, kept in the media store as a
 * webhook's own avatar is: its hash, for the message's author. Best effort: a
 * URL that cannot be fetched, is no image or is too big leaves the webhook's
 * own picture, since refusing would lose the message and its sender would
 * retry it. Fetched through RemoteFetch (no internal addresses).
 */
export class AvatarOverrides extends Context.Service<AvatarOverrides, {
  readonly hashOf: (url: string) => Effect.Effect<string | undefined>
}>()("guildhall/AvatarOverrides") {
  static readonly layer = Layer.effect(
    AvatarOverrides,
    Effect.gen(function*() {
      const remote = yield* RemoteFetch
      const media = yield* MediaStore
      // A failure may be the other host's passing trouble: tried again sooner.
      const remembered = new RecentAnswers<string>(REMEMBERED, REMEMBERED_MS, REMEMBERED_MS / 60)
      const fetched = (url: string) =>
        Effect.gen(function*() {
          const { bytes } = yield* remote.fetch(url, { accepts: (head) => inspectImage(head) !== undefined, accept: "image/*" })
          const image = inspectImage(bytes)
          const fits = image !== undefined && bytes.byteLength <= WEBHOOK_AVATARS.maxBytes &&
            image.width <= WEBHOOK_AVATARS.maxDimension && image.height <= WEBHOOK_AVATARS.maxDimension
          return fits ? yield* media.put(bytes) : undefined
        }).pipe(
          Effect.timeoutOrElse({ duration: FETCH_CAP, orElse: () => Effect.succeed(undefined) }),
          Effect.catch((error) => Effect.as(Effect.logDebug("webhook avatar_url not used", url, error), undefined))
        )
      return AvatarOverrides.of({
        hashOf: (url) =>
          Effect.suspend(() => {
            const known = remembered.get(url)
            if (known !== "unknown") return Effect.succeed(known)
            return Effect.map(fetched(url), (hash) => remembered.keep(url, hash))
          })
      })
    })
  ).pipe(Layer.provide(RemoteFetch.layer))
}
