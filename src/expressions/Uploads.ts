import { Effect } from "effect"
import { BadRequest } from "../model/Errors.ts"
import { decodeImage, type ImageLimits } from "../media/Images.ts"
import { type MediaStore, mediaUnavailable } from "../media/MediaStore.ts"
import type { Snowflakes } from "../platform/Snowflake.ts"
import type { BulkFailure } from "../model/Expressions.ts"

/** Upload caps: the spec leaves them open; these are the common chat-platform ones. */
export const EMOJI_IMAGES: ImageLimits = { maxBytes: 256 * 1024, maxDimension: 2048 }
export const STICKER_IMAGES: ImageLimits = { maxBytes: 512 * 1024, maxDimension: 2048 }

/** A new expression's id and stored image. */
export interface StoredImage {
  readonly id: string
  readonly mediaHash: string
  readonly animated: boolean
}

/**
 * Checks images and stores them before the write that references them, which
 * then only carries the hash. An image of a write that is then refused stays
 * stored, unreferenced, which costs disk only.
 */
export const makeUploads = (media: MediaStore["Service"], snowflakes: Snowflakes["Service"]) => {
  const store = (value: string, path: string, limits: ImageLimits) =>
    Effect.gen(function*() {
      const decoded = decodeImage(value, path, limits)
      if ("problem" in decoded) return { ok: false, problem: decoded.problem } as const
      const mediaHash = yield* media.put(decoded.image.bytes).pipe(Effect.catch(mediaUnavailable))
      const stored: StoredImage = { id: snowflakes.next(), mediaHash, animated: decoded.image.info.animated }
      return { ok: true, stored } as const
    })

  /** One image, or 400 INVALID_FORM_BODY naming the `image` field. */
  const storeOrFail = (value: string, limits: ImageLimits) =>
    Effect.flatMap(store(value, "image", limits), (result) =>
      result.ok
        ? Effect.succeed(result.stored)
        : Effect.fail(new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: [result.problem] })))

  /** Each item's image; the ones that fail are reported by name and validation code. */
  const storeEach = <Item extends { readonly name: string; readonly image: string }>(
    items: ReadonlyArray<Item>,
    field: string,
    limits: ImageLimits
  ) =>
    Effect.gen(function*() {
      const stored: Array<{ readonly item: Item; readonly image: StoredImage }> = []
      const failed: Array<BulkFailure> = []
      for (const [index, item] of items.entries()) {
        const result = yield* store(item.image, `${field}.${index}.image`, limits)
        if (result.ok) stored.push({ item, image: result.stored })
        else failed.push({ name: item.name, error: result.problem.code ?? "INVALID_IMAGE_DATA" })
      }
      return { stored, failed }
    })

  return { storeOrFail, storeEach }
}
