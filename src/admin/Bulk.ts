import { Effect, Schema } from "effect"

/** BulkOperationResponse (part B): each id either succeeded or failed with why. */
export const BulkOperationResponse = Schema.Struct({
  successful: Schema.Array(Schema.String),
  failed: Schema.Array(Schema.Struct({ id: Schema.String, error: Schema.String }))
})
export type BulkOperationResponse = typeof BulkOperationResponse.Type

/**
 * `each` for every distinct id, one at a time (as the production service does
 * them): a bad id fails alone, reported by its error's code.
 */
export const forEachId = <Id extends string, E extends { readonly code: string }, R>(
  ids: ReadonlyArray<Id>,
  each: (id: Id) => Effect.Effect<unknown, E, R>
): Effect.Effect<BulkOperationResponse, never, R> =>
  Effect.gen(function*() {
    const successful: Array<string> = []
    const failed: Array<{ id: string; error: string }> = []
    for (const id of new Set(ids)) {
      const outcome = yield* Effect.result(each(id))
      if (outcome._tag === "Success") successful.push(id)
      else failed.push({ id, error: outcome.failure.code })
    }
    return { successful, failed }
  })
