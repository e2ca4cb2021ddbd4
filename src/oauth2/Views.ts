import type { UserPartialResponse } from "../model/Users.ts"
import type { ApplicationRow } from "./Repo.ts"
import type { ApplicationBotResponse, ApplicationResponse, ApplicationsMeResponse } from "./Schemas.ts"

/** conventions.md, Sessions: the scopes an authorization may name. */
export const SCOPES: ReadonlyArray<string> = ["identify", "email", "guilds", "connections", "bot"]

/** Secrets shown once, in the reply of the request that made them. */
export interface FreshSecrets {
  readonly clientSecret?: string
  readonly botToken?: string
}

/** BotProfileResponse. */
export const botProfileView = (row: ApplicationRow) => ({
  id: row.id,
  username: row.username,
  discriminator: row.discriminator,
  avatar: row.avatar,
  banner: row.banner,
  bio: row.bio,
  flags: row.bot_flags
})

export const botView = (row: ApplicationRow, token?: string): ApplicationBotResponse => ({
  ...botProfileView(row),
  ...(token === undefined ? {} : { token })
})

/** ApplicationResponse: what the owner sees. */
export const applicationView = (row: ApplicationRow, fresh: FreshSecrets = {}): ApplicationResponse => ({
  id: row.id,
  name: row.name,
  redirect_uris: row.redirect_uris,
  bot_public: row.bot_public,
  bot_require_code_grant: row.bot_require_code_grant,
  ...(fresh.clientSecret === undefined ? {} : { client_secret: fresh.clientSecret }),
  bot: botView(row, fresh.botToken)
})

/** What anyone may see, e.g. the consent screen: the bot's avatar and bio stand for the application's icon and description. */
export const publicView = (row: ApplicationRow) => ({
  id: row.id,
  name: row.name,
  icon: row.avatar,
  description: row.bio,
  redirect_uris: row.redirect_uris,
  scopes: SCOPES,
  bot_public: row.bot_public,
  bot: botView(row)
})

/**
 * ApplicationsMeResponse, for the bot itself. There is no interactions
 * endpoint here, so no key verifies its requests: `verify_key` is empty.
 */
export const meView = (row: ApplicationRow, owner: UserPartialResponse): ApplicationsMeResponse => ({
  ...summaryView(row),
  verify_key: "",
  owner,
  bot: botView(row),
  redirect_uris: row.redirect_uris
})

/** The application as an authorization or token names it. */
export const summaryView = (row: ApplicationRow) => ({
  id: row.id,
  name: row.name,
  icon: row.avatar,
  description: row.bio,
  bot_public: row.bot_public,
  bot_require_code_grant: row.bot_require_code_grant,
  flags: 0
})

/** The application as the user's list of authorizations shows it. */
export const authorizedView = (row: ApplicationRow) => ({
  id: row.id,
  name: row.name,
  icon: row.avatar,
  description: row.bio,
  bot_public: row.bot_public
})
