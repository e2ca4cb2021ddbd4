import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { BadRequest } from "../model/Errors.ts"
import type { SsoConfigUpdate } from "./Api.ts"
import { applyUpdate, type SsoSettingsRow } from "./SettingsRules.ts"

/** The operator's SSO settings: one row, read on every SSO request so that every process sees a change at once. */
export class SsoSettings extends Context.Service<SsoSettings, {
  readonly get: Effect.Effect<SsoSettingsRow>
  /** Applies a partial update; nothing is stored when any field is invalid. */
  readonly update: (patch: SsoConfigUpdate) => Effect.Effect<{ row: SsoSettingsRow; changed: ReadonlyArray<string> }, BadRequest>
}>()("guildhall/SsoSettings") {
  static readonly layer = Layer.effect(
    SsoSettings,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const read = (lock: boolean) =>
        Effect.flatMap(
          sql<SsoSettingsRow>`
            SELECT enabled, enforced, display_name, issuer, authorization_url, token_url, userinfo_url, jwks_url,
                   client_id, client_secret, scope, allowed_domains, auto_provision, redirect_uri
            FROM sso_settings ${lock ? sql`FOR UPDATE` : sql``}`,
          (rows) => rows[0] === undefined ? Effect.die(new Error("sso_settings has no row")) : Effect.succeed(rows[0])
        )

      const update = Effect.fn("SsoSettings.update")((patch: SsoConfigUpdate) =>
        sql.withTransaction(
          Effect.gen(function*() {
            // Locked, so two operators' concurrent edits apply one after the other.
            const current = yield* read(true)
            const { next, changed, problems } = applyUpdate(current, patch)
            if (problems.length > 0) {
              return yield* new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: problems })
            }
            yield* sql`
              UPDATE sso_settings SET
                enabled = ${next.enabled}, enforced = ${next.enforced}, display_name = ${next.display_name},
                issuer = ${next.issuer}, authorization_url = ${next.authorization_url}, token_url = ${next.token_url},
                userinfo_url = ${next.userinfo_url}, jwks_url = ${next.jwks_url}, client_id = ${next.client_id},
                client_secret = ${next.client_secret}, scope = ${next.scope},
                allowed_domains = ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(next.allowed_domains)}::jsonb)),
                auto_provision = ${next.auto_provision}, redirect_uri = ${next.redirect_uri}, updated_at = now()`
            return { row: next, changed }
          })
        ).pipe(Effect.catchTag("SqlError", Effect.die)))

      return SsoSettings.of({ get: read(false).pipe(Effect.orDie, Effect.withSpan("SsoSettings.get")), update })
    })
  )
}
