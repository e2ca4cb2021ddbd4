import { Effect } from "effect"
import { BadRequest, invalidField } from "../../model/Errors.ts"
import { contentTypeFor, isAudio } from "./Types.ts"
import type { MessageCreateRequest } from "../../model/MessageRequests.ts"
import { unstorableInJson } from "../../http/StorableInput.ts"
import { MessageFlag } from "../../model/Messages.ts"
import type { StagedFile } from "./Uploads.ts"

/** Longest voice message, in seconds. */
export const MAX_VOICE_SECONDS = 1200
const MAX_FILENAME = 255

type AttachmentMetadata = NonNullable<MessageCreateRequest["attachments"]>[number]

/** An uploaded file with the metadata that describes it, checked. */
export interface DescribedFile {
  readonly file: StagedFile
  readonly metadata: AttachmentMetadata
  readonly filename: string
  readonly contentType: string
}

const INVALID_FILENAME = /[\u0000-\u001f\u007f<>:"|?*]/

/**
 * A file name as it is kept: without any directory part (a client may send a
 * path), blanks turned into underscores. Characters that no file system takes
 * are refused rather than silently dropped.
 */
export const normaliseFilename = (raw: string, path: string): Effect.Effect<string, BadRequest> => {
  const base = raw.split(/[\\/]/).pop() ?? ""
  if (INVALID_FILENAME.test(base)) return Effect.fail(invalidField(path, "FILENAME_INVALID_CHARACTERS", "The file name has characters files cannot have"))
  const name = base.trim().replace(/\s+/g, "_")
  if (name === "" || name === "." || name === "..") {
    return Effect.fail(invalidField(path, "FILENAME_EMPTY_AFTER_NORMALIZATION", "The file name is empty"))
  }
  if ([...name].length > MAX_FILENAME) {
    return Effect.fail(invalidField(path, "FILENAME_LENGTH_INVALID", `File names are at most ${MAX_FILENAME} characters`))
  }
  return Effect.succeed(name)
}

/**
 * Pairs each uploaded file with its entry of `attachments` (its `id` is the
 * file's index n of `files[n]`): every file is described and every entry has
 * its file, once.
 */
export const describeFiles = (
  request: MessageCreateRequest,
  files: ReadonlyArray<StagedFile>
): Effect.Effect<ReadonlyArray<DescribedFile>, BadRequest> =>
  Effect.gen(function*() {
    const metadata = request.attachments ?? []
    if (files.length === 0) {
      return metadata.length === 0
        ? []
        : yield* invalidField("attachments", "ATTACHMENT_METADATA_WITHOUT_FILES", "Attachments are described but no file was sent")
    }
    if (request.attachments === undefined) {
      return yield* invalidField("attachments", "ATTACHMENTS_METADATA_REQUIRED_WHEN_UPLOADING", "Describe each file in attachments")
    }
    const seen = new Set<string>()
    for (const [i, entry] of metadata.entries()) {
      const id = String(entry.id)
      if (seen.has(id)) return yield* invalidField(`attachments.${i}.id`, "DUPLICATE_ATTACHMENT_IDS_NOT_ALLOWED", "Each attachment id once")
      seen.add(id)
      if (!files.some((f) => String(f.index) === id)) {
        return yield* invalidField(`attachments.${i}`, "NO_FILE_FOR_ATTACHMENT_METADATA", `No file was sent as files[${id}]`)
      }
    }
    return yield* Effect.forEach([...files].sort((a, b) => a.index - b.index), (file) =>
      Effect.gen(function*() {
        const entry = metadata.find((m) => String(m.id) === String(file.index))
        if (entry === undefined) return yield* invalidField(file.fieldName, "NO_METADATA_FOR_FILE", "This file is not described in attachments")
        const filename = yield* normaliseFilename(file.filename, file.fieldName)
        if (entry.filename !== undefined && (yield* normaliseFilename(entry.filename, `attachments.${file.index}.filename`)) !== filename) {
          return yield* invalidField(`attachments.${file.index}.filename`, "FILENAME_MISMATCH_FOR_ATTACHMENT", "Not the name of the file sent")
        }
        return { file, metadata: entry, filename, contentType: contentTypeFor(filename, file.head) }
      }))
  })

/**
 * A voice message (flag VOICE_MESSAGE) is one audio file with its duration
 * and waveform, and nothing else; the guild actor checks the rest of its shape
 * (no text, embeds or stickers: MessageDraft.checkShape).
 */
export const checkVoiceMessage = (
  request: MessageCreateRequest,
  files: ReadonlyArray<DescribedFile>
): Effect.Effect<void, BadRequest> =>
  Effect.gen(function*() {
    if (((request.flags ?? 0) & MessageFlag.VOICE_MESSAGE) === 0) return
    if (request.favorite_meme_id != null) {
      return yield* invalidField("favorite_meme_id", "VOICE_MESSAGES_CANNOT_HAVE_FAVORITE_MEMES", "A voice message has no saved media")
    }
    const [voice, ...others] = files
    if (voice === undefined || others.length > 0) {
      return yield* invalidField("attachments", "VOICE_MESSAGES_REQUIRE_SINGLE_ATTACHMENT", "A voice message is one audio file")
    }
    const path = `attachments.${voice.file.index}`
    if (!isAudio(voice.contentType)) {
      return yield* invalidField(path, "VOICE_MESSAGES_ATTACHMENT_MUST_BE_AUDIO", "A voice message is an audio file")
    }
    if (voice.metadata.waveform == null || voice.metadata.waveform === "") {
      return yield* invalidField(`${path}.waveform`, "VOICE_MESSAGES_ATTACHMENT_WAVEFORM_REQUIRED", "A voice message has a waveform")
    }
    if (voice.metadata.duration == null) {
      return yield* invalidField(`${path}.duration`, "VOICE_MESSAGES_ATTACHMENT_DURATION_REQUIRED", "A voice message has a duration")
    }
    if (voice.metadata.duration > MAX_VOICE_SECONDS) {
      return yield* invalidField(`${path}.duration`, "VOICE_MESSAGES_DURATION_EXCEEDS_LIMIT", `Voice messages are at most ${MAX_VOICE_SECONDS} seconds`)
    }
  })

/**
 * A multipart body's `payload_json`, refused when missing, not JSON, or
 * carrying text that cannot be stored (checked as every JSON body is, at the edge).
 */
export const payloadJsonOf = (json: string | undefined): Effect.Effect<unknown, BadRequest> => {
  if (json === undefined) {
    return Effect.fail(invalidField("payload_json", "PAYLOAD_JSON_REQUIRED_FOR_MULTIPART", "A multipart create carries payload_json"))
  }
  const unstorable = unstorableInJson(json)
  if (unstorable.length > 0) {
    return Effect.fail(new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: unstorable }))
  }
  try {
    return Effect.succeed(JSON.parse(json))
  } catch {
    return Effect.fail(invalidField("payload_json", "INVALID_JSON_IN_PAYLOAD_JSON", "payload_json is not JSON"))
  }
}
