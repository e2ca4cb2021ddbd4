import { Effect } from "effect"
import { attachmentPath } from "../messages/attachments/MessageUploads.ts"
import { MEDIA_HASH } from "../media/ContentAddress.ts"
import { MediaStore, mediaUnavailable } from "../media/MediaStore.ts"
import { RemoteFetch, type RemoteFetchError } from "../media/RemoteFetch.ts"
import { filenameFor, type SniffedMedia, sniffMedia } from "../media/Sniff.ts"
import { BadRequest, invalidField } from "../model/Errors.ts"
import type { MessageAttachmentResponse, MessageResponse } from "../model/Messages.ts"
import { AppConfig } from "../platform/Config.ts"

/**
 * Where a meme's bytes come from, and their copy in the media store: a
 * message's attachment (already stored, under the hash its URL names), an
 * embed's image (ours when its URL is one of our files, else fetched), or a
 * URL fetched through RemoteFetch. The store is content-addressed, so the
 * meme outlives the message: nothing deletes an object when a row goes.
 */
export interface StoredMedia {
  readonly hash: string
  readonly size: number
  readonly media: SniffedMedia
  readonly filename: string
  /** Where the file is served: a message attachment's URL shape (messages/attachments/Api.ts). */
  readonly url: string
  readonly isGifv: boolean
  /** The attachment's description, the default alt text. */
  readonly description: string | null
}

const MAX_FILENAME = 100

/** The file name a URL's path ends with (or `media`), safe to serve and to store. */
const lastSegment = (url: string): string => {
  const segment = new URL(url).pathname.split("/").pop() ?? ""
  let decoded = segment
  try {
    decoded = decodeURIComponent(segment)
  } catch {
    // kept as written
  }
  return safeFilename(decoded)
}

const safeFilename = (name: string): string => {
  const cleaned = name.replace(/[\u0000-\u001f\u007f/\\]/g, "_").toWellFormed().trim()
  return cleaned.length === 0 ? "media" : [...cleaned].slice(-MAX_FILENAME).join("")
}

/** The hash a URL of ours names (`/attachments/{hash}/{name}` or `/media/{hash}`), when it is ours. */
const ownHash = (url: string, publicUrl: string): string | undefined => {
  if (!URL.canParse(url)) return undefined
  const parsed = new URL(url)
  if (parsed.origin !== new URL(publicUrl).origin) return undefined
  const match = /^\/(?:attachments\/([0-9a-f]{64})\/[^/]+|media\/([0-9a-f]{64}))$/.exec(parsed.pathname)
  const hash = match?.[1] ?? match?.[2]
  return hash !== undefined && MEDIA_HASH.test(hash) ? hash : undefined
}

const noMedia = (path: string) => invalidField(path, "NO_VALID_MEDIA_IN_MESSAGE", "No image or MP4 or WebM video there")

/** A failed fetch as the user sees it: a bad URL or type names the field; the rest say what went wrong. */
export const fetchRefusal = (path: string) => (error: RemoteFetchError): BadRequest => {
  switch (error.reason) {
    case "invalid_url":
      return invalidField(path, "INVALID_URL_FORMAT", error.message)
    case "unsupported_type":
      return invalidField(path, "INVALID_IMAGE_FORMAT", error.message)
    case "too_large":
      return new BadRequest({ code: "FILE_SIZE_TOO_LARGE", message: error.message })
    default:
      return new BadRequest({ code: "MEDIA_METADATA_ERROR", message: `Could not fetch the media: ${error.message}` })
  }
}

export const mediaSources = Effect.gen(function*() {
  const store = yield* MediaStore
  const remote = yield* RemoteFetch
  const { publicUrl, mediaFetch } = yield* AppConfig

  const served = (hash: string, filename: string) => `${publicUrl}${attachmentPath(hash, filename)}`

  /** The stored object of `hash`, if it is media; the size limit holds for stored files as for fetched ones. */
  const storedObject = (hash: string, path: string) =>
    Effect.gen(function*() {
      const bytes = yield* store.get(hash).pipe(Effect.catch(mediaUnavailable))
      if (bytes === undefined) return yield* noMedia(path)
      if (bytes.length > mediaFetch.maxBytes) {
        return yield* new BadRequest({ code: "FILE_SIZE_TOO_LARGE", message: `The file is larger than ${mediaFetch.maxBytes} bytes` })
      }
      const media = sniffMedia(bytes)
      if (media === undefined) return yield* noMedia(path)
      return { hash, size: bytes.length, media }
    })

  /** `url` fetched and stored (or read from the store when it is one of ours). */
  const fromUrl = (url: string, path: string, isGifv: (media: SniffedMedia) => boolean) =>
    Effect.gen(function*() {
      const own = ownHash(url, publicUrl)
      const found = own !== undefined
        ? yield* storedObject(own, path)
        : yield* Effect.flatMap(remote.fetchMedia(url).pipe(Effect.mapError(fetchRefusal(path))), (fetched) =>
          Effect.map(store.put(fetched.bytes).pipe(Effect.catch(mediaUnavailable)), (hash) => ({
            hash,
            size: fetched.bytes.length,
            media: fetched.media
          })))
      const filename = filenameFor(lastSegment(url), found.media)
      const stored: StoredMedia = {
        ...found,
        filename,
        url: served(found.hash, filename),
        isGifv: isGifv(found.media),
        description: null
      }
      return stored
    })

  const fromAttachment = (attachment: MessageAttachmentResponse, path: string) =>
    Effect.gen(function*() {
      const hash = /\/attachments\/([0-9a-f]{64})\//.exec(attachment.url ?? "")?.[1]
      if (hash === undefined) return yield* noMedia(path)
      const found = yield* storedObject(hash, path)
      const filename = filenameFor(safeFilename(attachment.filename), found.media)
      const stored: StoredMedia = {
        ...found,
        filename,
        url: served(hash, filename),
        isGifv: false,
        description: attachment.description ?? null
      }
      return stored
    })

  const isKept = (contentType: string | null | undefined) =>
    contentType != null && (contentType.startsWith("image/") || contentType === "video/mp4" || contentType === "video/webm")

  /**
   * The media `attachmentId` or `embedIndex` names in `message`; with neither,
   * as production falls back: its first media attachment, else its first
   * embed with an image.
   */
  const fromMessage = (message: MessageResponse, attachmentId: string | null, embedIndex: number | null) =>
    Effect.gen(function*() {
      const embedMedia = (index: number) => {
        const embed = message.embeds[index]
        const url = embed?.image?.url ?? embed?.thumbnail?.url
        return embed === undefined || url == null ? undefined : { url, isGifv: embed.type === "gifv" }
      }
      const fromEmbed = (index: number) => {
        const found = embedMedia(index)
        return found === undefined
          ? Effect.fail(noMedia("embed_index"))
          : fromUrl(found.url, "embed_index", () => found.isGifv)
      }
      if (embedIndex !== null) {
        if (embedIndex >= message.embeds.length) {
          return yield* invalidField("embed_index", "EMBED_INDEX_OUT_OF_BOUNDS", `The message has ${message.embeds.length} embed(s)`)
        }
        return yield* fromEmbed(embedIndex)
      }
      if (attachmentId !== null) {
        const attachment = message.attachments.find((a) => a.id === attachmentId)
        if (attachment === undefined) {
          return yield* invalidField("attachment_id", "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE", "The message has no such attachment")
        }
        return yield* fromAttachment(attachment, "attachment_id")
      }
      const attachment = message.attachments.find((a) => isKept(a.content_type))
      if (attachment !== undefined) return yield* fromAttachment(attachment, "media")
      const index = message.embeds.findIndex((_, i) => embedMedia(i) !== undefined)
      return index < 0 ? yield* noMedia("media") : yield* fromEmbed(index)
    })

  return { fromUrl, fromMessage }
})
