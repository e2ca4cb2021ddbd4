import { Schema } from "effect"
import { isoTimestamp } from "../../src/platform/Timestamps.ts"

/**
 * Checked reads of the columns of the driver's rows, for the loads of a
 * hundred thousand rows and more (a big guild's members). A schema decodes a
 * row through its generic machinery, which took two thirds of a
 * 100,000-member guild's load; these make the same checks (each column's
 * type, null only where the column may be null) at the cost of a `typeof`.
 * Loads with few rows keep their schemas.
 */

/** A row of ours that is not what its query selects: a bug or a migration not applied, never a client's input. */
export class RowShapeError extends Schema.TaggedError<RowShapeError>()("RowShapeError", {
  message: Schema.String
}) {}

/** A row as the driver hands it: its columns by name. */
export type Row = Readonly<Record<string, unknown>>

const refused = (column: string, expected: string, value: unknown): RowShapeError =>
  new RowShapeError({ message: `column ${column}: expected ${expected}, got ${value === null ? "null" : typeof value}` })

export const text = (row: Row, column: string): string => {
  const value = row[column]
  if (typeof value === "string") return value
  throw refused(column, "text", value)
}

export const textOrNull = (row: Row, column: string): string | null => {
  const value = row[column]
  if (value === null || typeof value === "string") return value
  throw refused(column, "text or null", value)
}

export const int = (row: Row, column: string): number => {
  const value = row[column]
  if (typeof value === "number" && Number.isInteger(value)) return value
  throw refused(column, "an integer", value)
}

export const intOrNull = (row: Row, column: string): number | null => {
  const value = row[column]
  if (value === null || (typeof value === "number" && Number.isInteger(value))) return value
  throw refused(column, "an integer or null", value)
}

export const bool = (row: Row, column: string): boolean => {
  const value = row[column]
  if (typeof value === "boolean") return value
  throw refused(column, "a boolean", value)
}

/** A text[] column (ids cast to text). An empty one is always the same frozen array: most members have no roles. */
export const texts = (row: Row, column: string): ReadonlyArray<string> => {
  const value = row[column]
  if (!Array.isArray(value)) throw refused(column, "an array of text", value)
  if (value.length === 0) return NO_TEXTS
  const checked: Array<string> = []
  for (const item of value) {
    if (typeof item !== "string") throw refused(column, "an array of text", item)
    checked.push(item)
  }
  return checked
}

const NO_TEXTS: ReadonlyArray<string> = Object.freeze([])

/** A timestamptz column as ISO 8601 text. */
export const timestamp = (row: Row, column: string): string => {
  const value = row[column]
  if (value instanceof Date || typeof value === "string") return isoTimestamp(value)
  throw refused(column, "a timestamp", value)
}

export const timestampOrNull = (row: Row, column: string): string | null =>
  row[column] === null ? null : timestamp(row, column)
