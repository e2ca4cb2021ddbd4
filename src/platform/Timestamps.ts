/** A timestamp column as the API shows it: ISO 8601 (the driver hands back Date or text). */
export const isoTimestamp = (value: Date | string): string => (value instanceof Date ? value : new Date(value)).toISOString()

export const isoTimestampOrNull = (value: Date | string | null): string | null => value === null ? null : isoTimestamp(value)
