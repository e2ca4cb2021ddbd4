import { readFileSync } from "node:fs"
import type { FieldError } from "../model/Errors.ts"

export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 256

/**
 * The passwords of 8 characters or more among the 30,000 most common ones of
 * the public "xato" leak corpus, ranked by frequency (as shipped in zxcvbn's
 * frequency lists), lowercased. Shorter ones fail the length rule anyway.
 */
const common: ReadonlySet<string> = new Set(
  readFileSync(new URL("./common-passwords.txt", import.meta.url), "utf8").split("\n").filter((line) => line.length > 0)
)

export const isTooCommon = (password: string): boolean => common.has(password.toLowerCase())

/**
 * What is wrong with a password someone is setting (registration, reset,
 * revert, a change): its length in code points, then whether it is common.
 * Checking a password at login needs none of this.
 */
export const passwordProblems = (password: string | undefined, path = "password"): Array<FieldError> => {
  const length = password === undefined ? 0 : [...password].length
  if (password === undefined || length < PASSWORD_MIN || length > PASSWORD_MAX) {
    return [{ path, code: "PASSWORD_LENGTH_INVALID", message: `Must be between ${PASSWORD_MIN} and ${PASSWORD_MAX} in length` }]
  }
  if (isTooCommon(password)) {
    return [{ path, code: "PASSWORD_IS_TOO_COMMON", message: "This password is too common; choose another" }]
  }
  return []
}
