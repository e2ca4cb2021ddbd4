import { Context, Data, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomInt } from "node:crypto"
import { type BadRequest, Forbidden, invalidField } from "../model/Errors.ts"
import { Snowflakes } from "../platform/Snowflake.ts"

/** A provider identity whose email the caller has already checked (verified, allowed domain). */
export interface VerifiedIdentity {
  readonly issuer: string
  readonly subject: string
  readonly email: string
  readonly name: string | undefined
}

const identityTaken = () =>
  invalidField("sub", "SSO_IDENTITY_MISMATCH", "This account is already linked to another identity at the provider")
const noAccount = () =>
  new Forbidden({
    code: "SSO_REQUIRED",
    message: "No account matches this identity and accounts are not created automatically; ask an administrator"
  })

/** A concurrent first login of the same person won a race: roll back and look again. */
class LostRace extends Data.TaggedError("LostRace") {}

/** A username from the person's name or email: letters, digits, `_` and `.`, 2 to 32 of them. */
export const usernameFrom = (name: string | undefined, email: string): string => {
  const clean = (s: string) => s.normalize("NFKC").replace(/\s+/g, "_").replace(/[^\p{L}\p{N}_.]/gu, "")
  const fromName = name === undefined ? "" : clean(name)
  const base = fromName.length >= 2 ? fromName : clean(email.split("@")[0] ?? "")
  return [...(base.length > 0 ? base : "user")].slice(0, 32).join("").padEnd(2, "_")
}

/**
 * Maps (issuer, subject) to a user: the linked user; else the user with that
 * email, linked now; else, when allowed, a new user (no password: SSO is its
 * way in; email verified by the provider).
 */
export class SsoAccounts extends Context.Service<SsoAccounts, {
  readonly resolve: (identity: VerifiedIdentity, autoProvision: boolean) => Effect.Effect<string, BadRequest | Forbidden>
}>()("guildhall/SsoAccounts") {
  static readonly layer = Layer.effect(
    SsoAccounts,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const snowflakes = yield* Snowflakes

      const linked = (i: VerifiedIdentity) =>
        Effect.map(
          sql<{ user_id: string }>`
            UPDATE sso_identities SET last_login_at = now(), email = ${i.email}
            WHERE issuer = ${i.issuer} AND subject = ${i.subject} RETURNING user_id`,
          (rows) => rows[0] === undefined ? undefined : String(rows[0].user_id)
        )

      /** False when the identity or the user's link to this provider exists already. */
      const link = (i: VerifiedIdentity, userId: string) =>
        Effect.map(
          sql`INSERT INTO sso_identities (issuer, subject, user_id, email)
              VALUES (${i.issuer}, ${i.subject}, ${userId}, ${i.email})
              ON CONFLICT DO NOTHING RETURNING user_id`,
          (rows) => rows.length === 1
        )

      const freeDiscriminator = (username: string) =>
        Effect.map(
          sql<{ discriminator: string }>`SELECT discriminator FROM users WHERE lower(username) = lower(${username})`,
          (rows) => {
            const taken = new Set(rows.map((r) => r.discriminator))
            for (let tries = 0; tries < 50; tries++) {
              const candidate = String(randomInt(1, 10_000)).padStart(4, "0")
              if (!taken.has(candidate)) return candidate
            }
            return undefined
          }
        )

      /** The new user's id, or undefined when its email or tag was taken meanwhile. */
      const provision = (i: VerifiedIdentity) =>
        Effect.gen(function*() {
          let username = usernameFrom(i.name, i.email)
          let discriminator = yield* freeDiscriminator(username)
          if (discriminator === undefined) {
            username = `${username.slice(0, 27)}_${randomInt(1000, 10_000)}`
            discriminator = (yield* freeDiscriminator(username)) ?? "0001"
          }
          const id = snowflakes.next()
          const rows = yield* sql`
            INSERT INTO users (id, username, discriminator, global_name, email, email_verified, password_hash)
            VALUES (${id}, ${username}, ${discriminator}, ${i.name?.slice(0, 32) ?? null}, ${i.email}, true, NULL)
            ON CONFLICT DO NOTHING RETURNING id`
          return rows.length === 1 ? id : undefined
        })

      const attempt = (i: VerifiedIdentity, autoProvision: boolean) =>
        Effect.gen(function*() {
          const known = yield* linked(i)
          if (known !== undefined) return known
          const [byEmail] = yield* sql<{ id: string }>`SELECT id FROM users WHERE lower(email) = lower(${i.email})`
          if (byEmail !== undefined) {
            const userId = String(byEmail.id)
            if (!(yield* link(i, userId))) {
              // Another login may have linked this very identity a moment ago; that is fine.
              if ((yield* linked(i)) === userId) return userId
              return yield* identityTaken()
            }
            return userId
          }
          if (!autoProvision) return yield* noAccount()
          const created = yield* provision(i)
          if (created === undefined || !(yield* link(i, created))) return yield* new LostRace()
          return created
        })

      const resolve = Effect.fn("SsoAccounts.resolve")(function*(i: VerifiedIdentity, autoProvision: boolean) {
        for (let tries = 0; tries < 3; tries++) {
          const userId = yield* sql.withTransaction(attempt(i, autoProvision)).pipe(
            Effect.catchTag("LostRace", () => Effect.succeed(undefined))
          )
          if (userId !== undefined) return userId
        }
        return yield* Effect.die(new Error("SSO account could not be resolved after 3 attempts"))
      }, Effect.catchTag("SqlError", Effect.die))

      return SsoAccounts.of({ resolve })
    })
  )
}
