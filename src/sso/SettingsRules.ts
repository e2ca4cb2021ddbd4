import { domainToASCII } from "node:url"
import type { FieldError } from "../model/Errors.ts"
import type { SsoConfigResponse, SsoConfigUpdate } from "./Api.ts"

/** The stored SSO settings (table sso_settings), the secret included. */
export interface SsoSettingsRow {
  readonly enabled: boolean
  readonly enforced: boolean
  readonly display_name: string | null
  readonly issuer: string | null
  readonly authorization_url: string | null
  readonly token_url: string | null
  readonly userinfo_url: string | null
  readonly jwks_url: string | null
  readonly client_id: string | null
  readonly client_secret: string | null
  readonly scope: string | null
  readonly allowed_domains: ReadonlyArray<string>
  readonly auto_provision: boolean
  readonly redirect_uri: string | null
}

export const toConfigResponse = ({ client_secret, ...rest }: SsoSettingsRow): SsoConfigResponse => ({
  ...rest,
  allowed_domains: [...rest.allowed_domains],
  client_secret_set: client_secret !== null
})

/** Enough to send someone to the provider: the rest can be discovered from the issuer. */
export const isUsable = (s: SsoSettingsRow): boolean => s.enabled && s.issuer !== null && s.client_id !== null

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"])

/**
 * Where the server itself connects (issuer, token, JWKS...): HTTPS, or plain
 * HTTP to this machine only (a provider on loopback, as in tests and dev).
 */
export const isAllowedProviderUrl = (raw: string): boolean => {
  if (!URL.canParse(raw)) return false
  const url = new URL(raw)
  if (url.username !== "" || url.password !== "" || url.hash !== "") return false
  return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname))
}

/** An email domain as compared at login: lower case, IDNA (punycode) form. */
export const normalizeDomain = (raw: string): string | undefined => {
  const ascii = domainToASCII(raw.trim().replace(/^@/, "").toLowerCase())
  const labels = ascii.split(".")
  const valid = labels.length >= 2 && ascii.length <= 253 &&
    labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l))
  return valid ? ascii : undefined
}

const URL_FIELDS = ["issuer", "authorization_url", "token_url", "userinfo_url", "jwks_url"] as const
const TEXT_FIELDS = ["display_name", "client_id", "scope", "redirect_uri", ...URL_FIELDS] as const

export interface AppliedUpdate {
  readonly next: SsoSettingsRow
  /** The fields the request touched, for the audit log (names only, never values). */
  readonly changed: ReadonlyArray<string>
  readonly problems: ReadonlyArray<FieldError>
}

const problem = (field: string, code: string, message: string): FieldError => ({ path: `sso.${field}`, code, message })

/** The settings after `patch`, with every reason the result cannot be stored. */
export const applyUpdate = (current: SsoSettingsRow, patch: SsoConfigUpdate): AppliedUpdate => {
  const problems: Array<FieldError> = []
  const changed: Array<string> = []
  const next: { -readonly [K in keyof SsoSettingsRow]: SsoSettingsRow[K] } = { ...current }

  for (const field of TEXT_FIELDS) {
    const value = patch[field]
    if (value === undefined) continue
    changed.push(field)
    const trimmed = value?.trim() ?? ""
    next[field] = trimmed === "" ? null : trimmed
  }
  for (const field of URL_FIELDS) {
    const value = next[field]
    if (patch[field] !== undefined && value !== null && !isAllowedProviderUrl(value)) {
      problems.push(problem(field, "INVALID_URL_FORMAT", "Must be an https URL (http only to localhost)"))
    }
  }
  if (patch.redirect_uri !== undefined && next.redirect_uri !== null && !URL.canParse(next.redirect_uri)) {
    problems.push(problem("redirect_uri", "INVALID_URL_FORMAT", "Must be an absolute URL"))
  }
  if (patch.client_secret !== undefined) {
    // An admin form that does not show the secret sends it back empty: that keeps it.
    if (patch.client_secret === null) next.client_secret = null
    else if (patch.client_secret !== "") next.client_secret = patch.client_secret
    if (patch.client_secret !== "") changed.push("client_secret")
  }
  if (patch.allowed_domains !== undefined) {
    changed.push("allowed_domains")
    const domains: Array<string> = []
    patch.allowed_domains.forEach((raw, i) => {
      const domain = normalizeDomain(raw)
      if (domain === undefined) problems.push(problem(`allowed_domains.${i}`, "INVALID_DOMAIN", "Not a domain name"))
      else if (!domains.includes(domain)) domains.push(domain)
    })
    next.allowed_domains = domains
  }
  for (const flag of ["enabled", "enforced", "auto_provision"] as const) {
    const value = patch[flag]
    if (value === undefined) continue
    changed.push(flag)
    next[flag] = value
  }
  if (next.enabled) {
    if (next.issuer === null) problems.push(problem("issuer", "BASE_TYPE_REQUIRED", "Required while SSO is enabled"))
    if (next.client_id === null) problems.push(problem("client_id", "BASE_TYPE_REQUIRED", "Required while SSO is enabled"))
  }
  return { next, changed, problems }
}

/**
 * Where a client may be sent after signing in: a path of this site. Anything
 * else (another origin, `//host`, control characters) is dropped.
 */
export const safeRedirectTo = (raw: string | null | undefined): string => {
  const value = raw?.trim() ?? ""
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return ""
  return /[\u0000-\u001f\u007f\\]/.test(value) ? "" : value
}
