import { Schema } from "effect"

/*
 * What the inbound formats' payload schemas share. Senders omit a field or
 * send null for it interchangeably, and add fields of their own (ignored).
 */

/** A field a sender may omit or send as null. */
export const nullish = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.NullOr(schema))

/** A sender's id: a JSON number, or a string for some senders; only its presence matters here. */
export const SenderId = Schema.Union([Schema.Number, Schema.String])
