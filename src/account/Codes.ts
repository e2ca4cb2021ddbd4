import { randomBytes } from "node:crypto"
import { BadRequest, invalidField, TooManyRequests } from "../model/Errors.ts"
import { sameBytes, tokenHash } from "../platform/Crypto.ts"

/*
 * The emailed codes of the email and password change flows and the rules every
 * ticket of those flows shares. A code is typed by a person, so it is short
 * (8 symbols, 40 bits) and guarded by the ticket it belongs to: it lives 10
 * minutes, and a ticket dies after a few wrong codes.
 */

export const CODE_TTL_MS = 10 * 60_000
export const TICKET_TTL_MS = 60 * 60_000
/** Between two mails of one ticket to one address. */
export const RESEND_COOLDOWN_MS = 30_000
export const MAX_FAILED_ATTEMPTS = 5
/** New tickets a user may open per hour in one flow (each one mails a code). */
export const MAX_TICKETS_PER_HOUR = 10

/** 32 symbols without the look-alikes 0/O and 1/I (the handoff codes use them too). */
export const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

/** A fresh code as the mail shows it: `ABCD-EFGH`. */
export const newCode = (): string => {
  // 256 is a multiple of 32, so `byte % 32` picks every symbol with the same chance.
  const symbols = [...randomBytes(8)].map((byte) => CODE_ALPHABET[byte % CODE_ALPHABET.length])
  return `${symbols.slice(0, 4).join("")}-${symbols.slice(4).join("")}`
}

/** What is stored of a code: the SHA-256 of its symbols, read in any case, with or without the dash. */
export const codeHash = (code: string): Buffer => tokenHash(code.replace(/[\s-]/g, "").toUpperCase())

export type CodeCheck = "ok" | "wrong" | "expired" | "none"

/** Checks a typed code against the stored one; "none" when no code is out. */
export const checkCode = (
  stored: { readonly hash: Uint8Array | null; readonly expiresAt: Date | string | null },
  typed: string,
  now = Date.now()
): CodeCheck => {
  if (stored.hash === null || stored.expiresAt === null) return "none"
  if (!sameBytes(Buffer.from(stored.hash), codeHash(typed))) return "wrong"
  return new Date(stored.expiresAt).getTime() > now ? "ok" : "expired"
}

/** The proof that stands for a verified code, checked like a token. */
export const proofMatches = (stored: Uint8Array | null, presented: string): boolean =>
  stored !== null && sameBytes(Buffer.from(stored), tokenHash(presented))

export const inFuture = (ms: number, now = Date.now()) => new Date(now + ms)

/** Milliseconds until a mail may go out again, 0 when it may now. */
export const cooldownLeft = (sentAt: Date | string | null, now = Date.now()): number =>
  sentAt === null ? 0 : Math.max(0, new Date(sentAt).getTime() + RESEND_COOLDOWN_MS - now)

export const invalidTicket = () => invalidField("ticket", "INVALID_OR_EXPIRED_TICKET", "This ticket is invalid or has expired")
export const ticketCompleted = () => invalidField("ticket", "TICKET_ALREADY_COMPLETED", "This ticket was already used")
export const wrongCode = () => invalidField("code", "INVALID_VERIFICATION_CODE", "Invalid verification code")
export const expiredCode = () => invalidField("code", "VERIFICATION_CODE_EXPIRED", "This code has expired; ask for a new one")
export const noCodeSent = () => invalidField("code", "VERIFICATION_CODE_NOT_ISSUED", "No code was sent for this step")

/** The error for a failed code check (never called with "ok"). */
export const codeError = (check: Exclude<CodeCheck, "ok">): BadRequest =>
  check === "wrong" ? wrongCode() : check === "expired" ? expiredCode() : noCodeSent()

export const tooSoon = (millis: number) =>
  new TooManyRequests({
    code: "RATE_LIMITED",
    message: "Please wait before asking for another code",
    retry_after: Math.ceil(millis / 100) / 10,
    global: false
  })

export const tooManyTickets = () =>
  new TooManyRequests({ code: "RATE_LIMITED", message: "Too many attempts; try again later", retry_after: 3600, global: false })
