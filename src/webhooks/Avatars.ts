import { Effect } from "effect"
import { BadRequest } from "../model/Errors.ts"
import { decodeImage, type ImageLimits } from "../media/Images.ts"
import { type MediaStore, mediaUnavailable } from "../media/MediaStore.ts"

/** The production service's avatar cap (10 MiB); pictures are shown small, so 1024 pixels a side is plenty. */
export const WEBHOOK_AVATARS: ImageLimits = { maxBytes: 10 * 1024 * 1024, maxDimension: 1024 }

/**
 * A webhook's picture stored as emoji images are (the media store, by hash),
 * before the write that names it: the hash, null to remove it, undefined to
 * leave it. A bad image is 400 INVALID_FORM_BODY naming `avatar`.
 */
export const storeAvatar = (media: MediaStore["Service"]) => (value: string | null | undefined) =>
  Effect.gen(function*() {
    if (value === undefined || value === null) return value
    const decoded = decodeImage(value, "avatar", WEBHOOK_AVATARS)
    if ("problem" in decoded) {
      return yield* new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: [decoded.problem] })
    }
    return yield* media.put(decoded.image.bytes).pipe(Effect.catch(mediaUnavailable))
  })
