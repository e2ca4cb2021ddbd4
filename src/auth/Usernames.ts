import { randomInt } from "node:crypto"
import type { FieldError } from "../model/Errors.ts"

/**
 * What a username may be wherever one is chosen (registration, PATCH /users/@me):
 * 2 to 32 letters, digits, `_` or `.`, counted in code points.
 */
export const usernameProblem = (username: string, path = "username"): FieldError | undefined => {
  const length = [...username].length
  return length < 2 || length > 32 || !/^[\p{L}\p{N}_.]+$/u.test(username)
    ? { path, code: "STRING_LENGTH_INVALID", message: "2 to 32 letters, digits, _ or ." }
    : undefined
}

/** A discriminator as stored and shown: four digits, zero-padded. */
export const formatDiscriminator = (n: number): string => String(n).padStart(4, "0")

/** A random discriminator (0001 to 9999) not in `taken`, or undefined when a few tries found none. */
export const freeDiscriminator = (taken: ReadonlySet<string>): string | undefined => {
  for (let tries = 0; tries < 50; tries++) {
    const candidate = formatDiscriminator(randomInt(1, 10_000))
    if (!taken.has(candidate)) return candidate
  }
  return undefined
}
