import { Context, Effect, Layer, Schema } from "effect"
import { Passwords } from "../auth/Passwords.ts"
import { Snowflake } from "../model/Ids.ts"
import { BadRequest, Unauthorized } from "../model/Errors.ts"
import { ApplicationsRepo } from "./Repo.ts"

const isSnowflake = Schema.is(Snowflake)
const invalidClient = () => new Unauthorized({ code: "INVALID_CLIENT", message: "Unknown client or wrong client secret" })

/** What a token, revoke or introspect request says about its client. */
export interface ClientCredentials {
  readonly authorization: string | undefined
  readonly client_id?: string | undefined
  readonly client_secret?: string | undefined
}

/** `Authorization: Basic base64(id:secret)` (RFC 6749, 2.3.1). */
const basic = (authorization: string | undefined) => {
  if (authorization === undefined || !authorization.startsWith("Basic ")) return undefined
  const decoded = Buffer.from(authorization.slice(6).trim(), "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  return colon < 0 ? undefined : { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) }
}

/**
 * Client authentication at the token endpoints: `client_id` and
 * `client_secret` in the body, or HTTP Basic. The secret is checked against
 * its argon2id hash.
 */
export class OAuth2Clients extends Context.Service<OAuth2Clients, {
  /** The id of the application the credentials prove. */
  readonly authenticate: (credentials: ClientCredentials) => Effect.Effect<string, BadRequest | Unauthorized>
}>()("guildhall/OAuth2Clients") {
  static readonly layer = Layer.effect(
    OAuth2Clients,
    Effect.gen(function*() {
      const repo = yield* ApplicationsRepo
      const passwords = yield* Passwords

      const authenticate = Effect.fn("OAuth2Clients.authenticate")(function*(credentials: ClientCredentials) {
        const header = yield* Effect.try({ try: () => basic(credentials.authorization), catch: invalidClient })
        const id = credentials.client_id ?? header?.id
        const secret = credentials.client_secret ?? header?.secret
        if (id === undefined || !isSnowflake(id)) return yield* invalidClient()
        if (secret === undefined) return yield* new BadRequest({ code: "MISSING_CLIENT_SECRET", message: "client_secret is required" })
        const stored = yield* repo.secrets(id)
        // An unknown client is checked against a decoy too, so both answers take the same time.
        if (!(yield* passwords.verify(stored?.clientSecretHash, secret))) return yield* invalidClient()
        return id
      })

      return OAuth2Clients.of({ authenticate })
    })
  )
}
