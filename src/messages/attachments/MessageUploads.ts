import { Context, Effect, Layer, Schema, type Stream } from "effect"
import type { HttpServerRequest, Multipart } from "effect/http"
import { AppConfig } from "../../platform/Config.ts"
import { fieldErrors } from "../../http/ErrorResponses.ts"
import { BadRequest, type Forbidden, type PayloadTooLarge, type Unavailable } from "../../model/Errors.ts"
import { MediaStore, mediaUnavailable } from "../../media/MediaStore.ts"
import { Snowflakes } from "../../platform/Snowflake.ts"
import { checkVoiceMessage, type DescribedFile, describeFiles, payloadJsonOf } from "./Rules.ts"
import { dimensionsOf } from "./Types.ts"
import { MessageCreateRequest } from "../../model/MessageRequests.ts"
import type { MessageAttachmentResponse } from "../../model/Messages.ts"
import { discardRest, stageUpload } from "./Uploads.ts"
import { Limits } from "../../platform/Limits.ts"

const decodeRequest = Schema.decodeUnknownEffect(MessageCreateRequest)

/** The path of an attachment's file (AttachmentFilesApi.ts): its hash, and its name for the browser. */
export const attachmentPath = (hash: string, filename: string) => `/attachments/${hash}/${encodeURIComponent(filename)}`

export interface ReceivedMessage {
  /** `payload_json`, without the attachment metadata (now in `uploads`). */
  readonly request: MessageCreateRequest
  readonly uploads: ReadonlyArray<MessageAttachmentResponse>
  /** `payload_json` as sent, for a route whose body has fields of its own (a webhook's author overrides). */
  readonly json: unknown
}

/**
 * A multipart message create (`payload_json` and `files[n]`), received: the
 * sender's right to attach checked before the body is read (`mayAttach`: the
 * guild actor's answer for a guild channel, the DM actor's for a DM; its
 * refusal is the answer), the files streamed to temporary files under the
 * size limits (Uploads.ts), matched to their metadata, then stored in the
 * media store. What it answers goes to the channel's actor like a JSON
 * create, the files as the message's attachments.
 */
export class MessageUploads extends Context.Service<MessageUploads, {
  readonly receive: <E>(
    mayAttach: Effect.Effect<boolean, E>,
    parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
    request: HttpServerRequest.HttpServerRequest
  ) => Effect.Effect<ReceivedMessage, E | BadRequest | Forbidden | PayloadTooLarge | Unavailable>
}>()("guildhall/MessageUploads") {
  static readonly layer = Layer.effect(
    MessageUploads,
    Effect.gen(function*() {
      const store = yield* MediaStore
      const snowflakes = yield* Snowflakes
      const { publicUrl } = yield* AppConfig
      const limits = yield* Limits

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

      const receive = Effect.fn("MessageUploads.receive")(function*<E>(
        mayAttach: Effect.Effect<boolean, E>,
        parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
        _request: HttpServerRequest.HttpServerRequest
      ) {
        const staged = yield* stageUpload(parts, yield* mayAttach, {
          files: limits.get("max_attachments_per_message"),
          fileBytes: limits.get("max_attachment_file_size")
        })
        const json = yield* payloadJsonOf(staged.payloadJson)
        const payload = yield* decodeRequest(json).pipe(
          Effect.mapError((error) =>
            new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: fieldErrors(error, "Payload") }))
        )
        const described = yield* describeFiles(payload, staged.files)
        yield* checkVoiceMessage(payload, described)
        const uploads = yield* Effect.forEach(described, stored)
        const { attachments: _, ...rest } = payload
        return { request: rest, uploads, json }
      }, Effect.scoped, (received, _mayAttach, _parts, request) => Effect.tapError(received, () => discardRest(request)))

      return MessageUploads.of({ receive })
    })
  )
}
