import { Context, Effect, Layer, Schema } from "effect"
import { BadRequest, unauthorized, type Unauthorized } from "../model/Errors.ts"
import { SettingsRepo, type SettingsRow } from "./Repo.ts"
import { StoredSettings, type UserSettingsResponse, type UserSettingsUpdateRequest } from "./Schemas.ts"
import { present, toStored } from "./Values.ts"

const ADULT_AGE = 18

/** Of age on `now`; an unknown birth date counts as under age (the stricter defaults). */
export const isAdult = (dateOfBirth: Date | string | null, now: Date): boolean => {
  if (dateOfBirth === null) return false
  const born = new Date(dateOfBirth)
  const comingOfAge = new Date(born)
  comingOfAge.setFullYear(born.getFullYear() + ADULT_AGE)
  return comingOfAge <= now
}

const decodeStored = Schema.decodeUnknownEffect(StoredSettings)

/** GET and PATCH /users/@me/settings. */
export class UserSettings extends Context.Service<UserSettings, {
  readonly get: (userId: string) => Effect.Effect<UserSettingsResponse, Unauthorized>
  readonly update: (userId: string, body: UserSettingsUpdateRequest) => Effect.Effect<UserSettingsResponse, BadRequest | Unauthorized>
}>()("guildhall/UserSettings") {
  static readonly layer = Layer.effect(
    UserSettings,
    Effect.gen(function*() {
      const repo = yield* SettingsRepo

      const load = (userId: string) =>
        Effect.gen(function*() {
          const row = yield* repo.read(userId)
          if (row === undefined) return yield* unauthorized()
          return row
        })

      const show = (row: SettingsRow) =>
        Effect.gen(function*() {
          // The driver may hand jsonb back as text; what is stored was checked on the way in.
          const data: unknown = typeof row.data === "string" ? JSON.parse(row.data) : row.data ?? {}
          const stored = yield* decodeStored(data).pipe(Effect.orDie)
          const now = new Date()
          return present(stored, { theme: row.theme, locale: row.locale, adult: isAdult(row.date_of_birth, now), staff: row.staff }, now)
        })

      const get = Effect.fn("UserSettings.get")((userId: string) => Effect.flatMap(load(userId), show))

      const update = Effect.fn("UserSettings.update")(function*(userId: string, body: UserSettingsUpdateRequest) {
        const before = yield* load(userId)
        const change = toStored(body, before.staff, new Date())
        if (change.problems.length > 0) {
          return yield* new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: change.problems })
        }
        yield* repo.write(userId, change.stored, change.theme, change.locale)
        return yield* get(userId)
      })

      return UserSettings.of({ get, update })
    })
  )
}
