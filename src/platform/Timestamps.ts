import { Schema, SchemaGetter } from "effect"

/** A timestamp column as the API shows it: ISO 8601 (the driver hands back Date or text). */
export const isoTimestamp = (value: Date | string): string => (value instanceof Date ? value : new Date(value)).toISOString()

export const isoTimestampOrNull = (value: Date | string | null): string | null => value === null ? null : isoTimestamp(value)

/** A timestamptz column, kept as ISO 8601 text (the driver hands back a Date, or text). */
export const IsoTimestamp = Schema.Union([Schema.Date, Schema.String]).pipe(
  Schema.decodeTo(Schema.String, {
    decode: SchemaGetter.transform(isoTimestamp),
    encode: SchemaGetter.passthroughSubtype<Date | string, string>()
  })
)
