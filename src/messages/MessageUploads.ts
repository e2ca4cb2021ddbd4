import { Context, Effect, Layer, Schema, type Stream } from "effect"
import type { HttpServerRequest, Multipart } from "effect/http"
import { checkAttach } from "../../shards/guild/operations/MessageUploads.ts"
import { AppConfig } from "../Config.ts"
import { Actors } from "../guilds/Actors.ts"
import { fieldErrors } from "../http/ErrorResponses.ts"
import { BadRequest, type Forbidden, invalidField, type NotFound, type PayloadTooLarge, type Unavailable } from "../http/Errors.ts"
import { MediaStore, mediaUnavailable } from "../media/MediaStore.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { checkVoiceMessage, type DescribedFile, describeFiles, payloadJsonOf } from "./AttachmentRules.ts"
import { dimensionsOf } from "./AttachmentTypes.ts"
import { MessageCreateRequest } from "./Requests.ts"
import type { MessageAttachmentResponse } from "./Schemas.ts"
import { discardRest, stageUpload } from "./Uploads.ts"

const decodeRequest = Schema.decodeUnknownEffect(MessageCreateRequest)

/** The path of an attachment's file (AttachmentFilesApi.ts): its hash, and its name for the browser. */
export const attachmentPath = (hash: string, filename: string) => `/attachments/${hash}/${encodeURIComponent(filename)}`

export interface ReceivedMessage {
  /** `payload_json`, without the attachment metadata (now in `uploads`). */
  readonly request: MessageCreateRequest
  readonly uploads: ReadonlyArray<MessageAttachmentResponse>
}

/**
 * A multipart message create (`payload_json` and `files[n]`), received: the
 * sender's right to attach checked before the body is read, the files
 * streamed to temporary files under the size limits (Uploads.ts), matched to
 * their metadata, then stored in the media store. What it answers goes to
 * the guild actor like a JSON create, the files as the message's attachments.
 */
export class MessageUploads extends Context.Service<MessageUploads, {
  readonly receive: (
    guildId: string,
    channelId: string,
    userId: string,
    parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
    request: HttpServerRequest.HttpServerRequest
  ) => Effect.Effect<ReceivedMessage, BadRequest | Forbidden | NotFound | PayloadTooLarge | Unavailable>
  /** Files where this server takes none yet (DM channels): refused without reading them. */
  readonly refuse: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<never, BadRequest>
}>()("guildhall/MessageUploads") {
  static readonly layer = Layer.effect(
    MessageUploads,
    Effect.gen(function*() {
      const actors = yield* Actors
      const store = yield* MediaStore
      const snowflakes = yield* Snowflakes
      const { publicUrl } = yield* AppConfig

      const stored = (described: DescribedFile) =>
        Effect.map(
          store.putFile(described.file.path, described.file.hash, described.file.size).pipe(Effect.catch(mediaUnavailable)),
          (): MessageAttachmentResponse => {
            const { metadata, file } = described
            const url = `${publicUrl}${attachmentPath(file.hash, described.filename)}`
            return {
              id: snowflakes.next(),
              filename: described.filename,
              ...(metadata.title == null ? {} : { title: metadata.title }),
              ...(metadata.description == null ? {} : { description: metadata.description }),
              content_type: described.contentType,
              size: file.size,
              url,
              ...dimensionsOf(described.contentType, file.head),
              flags: metadata.flags ?? 0,
              ...(metadata.duration == null ? {} : { duration: metadata.duration }),
              ...(metadata.waveform == null ? {} : { waveform: metadata.waveform })
            }
          }
        )

      const receive = (
        guildId: string,
        channelId: string,
        userId: string,
        parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
        request: HttpServerRequest.HttpServerRequest
      ) =>
        Effect.scoped(Effect.gen(function*() {
          const mayAttach = yield* actors.read(guildId, checkAttach, { channelId, now: Date.now() }, userId)
          const staged = yield* stageUpload(parts, mayAttach)
          const json = yield* payloadJsonOf(staged.payloadJson)
          const payload = yield* decodeRequest(json).pipe(
            Effect.mapError((error) =>
              new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: fieldErrors(error, "Payload") }))
          )
          const described = yield* describeFiles(payload, staged.files)
          yield* checkVoiceMessage(payload, described)
          const uploads = yield* Effect.forEach(described, stored)
          const { attachments: _, ...rest } = payload
          return { request: rest, uploads }
        })).pipe(Effect.tapError(() => discardRest(request)))

      const refuse = (request: HttpServerRequest.HttpServerRequest) =>
        Effect.andThen(
          discardRest(request),
          Effect.fail(invalidField("files", "ATTACHMENTS_NOT_ALLOWED_FOR_MESSAGE", "Files cannot be sent in this channel"))
        )

      return MessageUploads.of({ receive, refuse })
    })
  )
}
