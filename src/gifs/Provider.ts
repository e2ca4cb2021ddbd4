import { Effect, Schema } from "effect"
import type { GifLocale, GifResponse } from "./Schemas.ts"

/**
 * Why a GIF provider gave no answer: it is not configured (no API key), it
 * could not be reached or refused (network error, timeout, non-2xx), or what it
 * answered is not what its API documents.
 */
export class GifProviderError extends Schema.TaggedError<GifProviderError>()("GifProviderError", {
  reason: Schema.Literals(["unconfigured", "unreachable", "undecodable"]),
  message: Schema.String
}) {}

/** What this server asks of a GIF provider; each implementation speaks its provider's HTTP API. */
export interface GifProvider {
  readonly trending: (locale: GifLocale, limit: number) => Effect.Effect<ReadonlyArray<GifResponse>, GifProviderError>
  readonly search: (q: string, locale: GifLocale, limit: number) => Effect.Effect<ReadonlyArray<GifResponse>, GifProviderError>
  /**
   * The featured categories, each as the term that searches it: clients search a
   * category's `name` when it is picked, so the term is also what they show.
   */
  readonly categories: (locale: GifLocale) => Effect.Effect<ReadonlyArray<string>, GifProviderError>
  readonly suggest: (q: string, locale: GifLocale) => Effect.Effect<ReadonlyArray<string>, GifProviderError>
  /** Tells the provider a result was shared (its ranking signal); `userId` for providers that count per user. */
  readonly registerShare: (
    share: { readonly id: string; readonly q: string; readonly locale: GifLocale; readonly userId: string }
  ) => Effect.Effect<void, GifProviderError>
}

/** Every call fails the same way: what a provider without an API key is. */
export const unconfiguredProvider = (name: string, keySetting: string): GifProvider => {
  const fail = Effect.fail(new GifProviderError({
    reason: "unconfigured",
    message: `The GIF provider ${name} is not configured on this server (${keySetting} is not set)`
  }))
  return { trending: () => fail, search: () => fail, categories: () => fail, suggest: () => fail, registerShare: () => fail }
}

/**
 * The providers want `en_US` where we say `en-US`; a bare language (`fr`) is
 * sent as it is.
 */
export const providerLocale = (locale: GifLocale): string => locale.replace("-", "_")

/** The country a locale names (`pt-BR` → `BR`), which the first provider ranks by; `US` when it names none. */
export const countryOf = (locale: GifLocale): string => {
  const region = locale.split("-")[1]
  return region !== undefined && /^[A-Z]{2}$/.test(region) ? region : "US"
}
