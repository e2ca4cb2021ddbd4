import { Context, Effect, Layer, Option, Schema } from "effect"
import { AppConfig } from "../platform/Config.ts"
import { RemoteFetch } from "../media/RemoteFetch.ts"

/** The AT-protocol profile method instances answer: `?actor=<handle>` gives `{handle, description, ...}`. */
export const PROFILE_METHOD = "/xrpc/app.bsky.actor.getProfile"
const TIMEOUT_MS = 5000
/** A profile is a few kilobytes; more is not one. */
const MAX_BYTES = 256 * 1024

const Profile = Schema.Struct({
  handle: Schema.optional(Schema.String),
  description: Schema.optional(Schema.NullOr(Schema.String))
})
const decodeProfile = Schema.decodeUnknownEffect(Schema.fromJsonString(Profile))

/** The body as text, or a failure once it passes MAX_BYTES. */
const boundedText = async (response: Response): Promise<string> => {
  const reader = response.body?.getReader()
  if (reader === undefined) return ""
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BYTES) {
      await reader.cancel()
      throw new Error("the profile is too large")
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString("utf8")
}

/**
 * Accounts on a federated social network, named by a handle (a host name:
 * `alice.example.social`). A handle's instance is SOCIAL_INSTANCE_URL when set
 * (one instance that answers for every handle, as an AT-protocol app view does),
 * else `https://` and the handle's host: the handle without its first label
 * (`example.social`), or the handle itself when it has two labels (a domain handle).
 *
 * The proof: the instance's PROFILE_METHOD for the handle answers a profile of
 * that handle whose description holds the verification string. Anything else
 * (no answer within 5 s, an error status, a redirect from the configured instance,
 * another shape, an instance derived from the handle at an internal address) is
 * no proof.
 */
export class SocialProof extends Context.Service<SocialProof, {
  readonly published: (handle: string, proof: string) => Effect.Effect<boolean>
  /** Where the user edits the account's profile, to put the verification string in it. */
  readonly profileUrl: (handle: string) => string
}>()("guildhall/SocialProof") {
  static readonly layer = Layer.effect(
    SocialProof,
    Effect.gen(function*() {
      const { socialInstanceUrl } = yield* AppConfig
      const remote = yield* RemoteFetch

      const hostOf = (handle: string): string => {
        const labels = handle.split(".")
        return labels.length > 2 ? labels.slice(1).join(".") : handle
      }
      const instanceOf = (handle: string): string =>
        Option.isSome(socialInstanceUrl) ? socialInstanceUrl.value : `https://${hostOf(handle)}`

      const published = Effect.fn("SocialProof.published")(function*(handle: string, proof: string) {
        const url = `${instanceOf(handle)}${PROFILE_METHOD}?actor=${encodeURIComponent(handle)}`
        // The configured instance is the operator's choice; a derived one is the user's, so it is asked
        // through RemoteFetch, which connects only to the public addresses it checked.
        const text = Option.isNone(socialInstanceUrl)
          ? yield* Effect.map(remote.fetch(url, { accept: "application/json" }), ({ bytes }) => Buffer.from(bytes).toString("utf8"))
          : yield* Effect.tryPromise(async () => {
          const response = await fetch(url, {
            headers: { accept: "application/json" },
            redirect: "error",
            signal: AbortSignal.timeout(TIMEOUT_MS)
          })
          if (!response.ok) throw new Error(`the instance answered ${response.status}`)
          return boundedText(response)
        })
        const profile = yield* decodeProfile(text)
        const sameAccount = profile.handle === undefined || profile.handle.toLowerCase() === handle
        return sameAccount && (profile.description ?? "").includes(proof)
      }, (effect) => Effect.orElseSucceed(effect, () => false))

      return SocialProof.of({
        published,
        profileUrl: (handle) => `${instanceOf(handle)}/profile/${encodeURIComponent(handle)}`
      })
    })
  ).pipe(Layer.provide(RemoteFetch.layer))
}
