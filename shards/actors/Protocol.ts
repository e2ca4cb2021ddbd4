import { Schema, SchemaTransformation } from "effect"
import { BadRequest, Forbidden, NotFound } from "../../src/model/Errors.ts"

/**
 * An error as it crosses between processes: `{ _tag, error }`. The HTTP error
 * classes omit `_tag` when encoded (the wire body of the public API), so
 * BadRequest, Forbidden and NotFound all encode to the same `{code, message}`.
 * In a union that is ambiguous: the runners' binary transport cannot build a
 * codec for it at all (the runner throws while sending the reply, which is
 * already stored, and the caller waits until its timeout), and JSON (stored
 * replies) decodes every one of them as the first member, BadRequest. The
 * literal `_tag` here tells them apart.
 */
const onWire = <const Tag extends string, S extends Schema.Top>(tag: Tag, error: S) =>
  Schema.Struct({ _tag: Schema.Literal(tag), error }).pipe(
    Schema.decodeTo(
      Schema.toType(error),
      SchemaTransformation.transform({
        // `S` is generic, so the struct's Type cannot be narrowed to `{ error }` here.
        decode: (wire) => (wire as { readonly error: S["Type"] }).error,
        encode: (value) => ({ _tag: tag, error: value })
      })
    )
  )

/** The refusals any actor answers with, as they cross between processes. */
export const ActorErrors = Schema.Union([
  onWire("BadRequest", BadRequest),
  onWire("Forbidden", Forbidden),
  onWire("NotFound", NotFound)
])
