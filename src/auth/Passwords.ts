import { Context, Effect, Layer } from "effect"
import argon2 from "argon2"

/**
 * argon2id with the OWASP baseline (19 MiB, 2 passes, 1 lane): about 20 ms a
 * hash on this machine, cheap enough for logins yet costly for an attacker
 * holding the table.
 */
const options = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

export class Passwords extends Context.Service<Passwords, {
  readonly hash: (password: string) => Effect.Effect<string>
  /** False for a wrong password; an unknown account is checked against a decoy so both take the same time. */
  readonly verify: (hash: string | null | undefined, password: string) => Effect.Effect<boolean>
}>()("guildhall/Passwords") {
  static readonly layer = Layer.effect(
    Passwords,
    Effect.gen(function*() {
      const decoy = yield* Effect.promise(() => argon2.hash("decoy password for unknown accounts", options))
      const hash = Effect.fn("Passwords.hash")((password: string) => Effect.promise(() => argon2.hash(password, options)))
      const verify = Effect.fn("Passwords.verify")((stored: string | null | undefined, password: string) =>
        Effect.promise(() => argon2.verify(stored ?? decoy, password).catch(() => false)).pipe(
          Effect.map((ok) => ok && stored != null)
        ))
      return Passwords.of({ hash, verify })
    })
  )
}
