import { randomInt } from "node:crypto"
import { createGuardrails, verifySync } from "otplib"

/*
 * The codes of MFA, as pure functions: TOTP (conventions.md: SHA-1, 30 s step,
 * 6 digits, one step of drift), backup codes (`xxxx-xxxx`, 10 of them) and the
 * 6-digit codes sent by SMS.
 */

export const TOTP_PERIOD_SECONDS = 30
export const BACKUP_CODE_COUNT = 10

/**
 * Authenticator apps and the clients that set them up use 80-bit secrets (16
 * base32 characters) as often as the 128 bits otplib asks for by default.
 */
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 })

/** A base32 secret as typed or scanned (any case, spaces, padding) in canonical form, or undefined. */
export const normalizeTotpSecret = (secret: string): string | undefined => {
  const canonical = secret.replace(/[\s=-]/g, "").toUpperCase()
  if (!/^[A-Z2-7]+$/.test(canonical)) return undefined
  const bytes = Math.floor((canonical.length * 5) / 8)
  return bytes >= 10 && bytes <= 64 ? canonical : undefined
}

/** A 6-digit code as typed (spaces allowed), or undefined. */
export const normalizeSixDigits = (code: string): string | undefined => {
  const digits = code.replace(/\s/g, "")
  return /^\d{6}$/.test(digits) ? digits : undefined
}

/**
 * The time step a TOTP code is valid for, now (±1 step), or undefined. A
 * step at or before `usedStep` does not count: that code was used already.
 */
export const totpStep = (secret: string, code: string, usedStep: number | null, nowMillis = Date.now()): number | undefined => {
  const token = normalizeSixDigits(code)
  if (token === undefined) return undefined
  try {
    const result = verifySync({
      secret,
      token,
      guardrails,
      algorithm: "sha1",
      digits: 6,
      period: TOTP_PERIOD_SECONDS,
      epoch: Math.floor(nowMillis / 1000),
      epochTolerance: TOTP_PERIOD_SECONDS,
      ...(usedStep === null ? {} : { afterTimeStep: usedStep })
    })
    return result.valid && "timeStep" in result ? result.timeStep : undefined
  } catch {
    // otplib throws on a malformed secret or token: not a valid code either way.
    return undefined
  }
}

const BACKUP_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"

/** A backup code as shown: `xxxx-xxxx`, lower-case letters and digits. */
export const newBackupCode = (): string => {
  const chars = Array.from({ length: 8 }, () => BACKUP_ALPHABET[randomInt(BACKUP_ALPHABET.length)])
  return `${chars.slice(0, 4).join("")}-${chars.slice(4).join("")}`
}

export const newBackupCodes = (): Array<string> => {
  const codes = new Set<string>()
  while (codes.size < BACKUP_CODE_COUNT) codes.add(newBackupCode())
  return [...codes]
}

/** A backup code as typed (any case, with or without the dash) in stored form, or undefined. */
export const normalizeBackupCode = (code: string): string | undefined => {
  const chars = code.replace(/[\s-]/g, "").toLowerCase()
  return /^[a-z0-9]{8}$/.test(chars) ? `${chars.slice(0, 4)}-${chars.slice(4)}` : undefined
}

export const newSmsCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, "0")

/** The verified phone as the login screen may show it: only the last four digits. */
export const maskPhone = (phone: string): string => {
  const digits = phone.replace(/\D/g, "")
  return `***-***-${digits.slice(-4)}`
}
