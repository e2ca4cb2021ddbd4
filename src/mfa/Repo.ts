import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { isoTimestamp, isoTimestampOrNull } from "../platform/Timestamps.ts"

/** What a user has enrolled, read in one query. */
export interface MfaState {
  readonly totpSecret: string | null
  readonly totpLastStep: number | null
  readonly smsEnabled: boolean
  /** The phone, when the users slice has verified it. */
  readonly verifiedPhone: string | null
  readonly webauthnCredentials: number
}

export interface BackupCode {
  readonly code: string
  readonly consumed: boolean
}

export interface StoredCredential {
  readonly credentialId: string
  readonly userId: string
  readonly publicKey: Uint8Array
  readonly counter: number
  readonly transports: ReadonlyArray<string>
  readonly name: string
  readonly createdAt: string
  readonly lastUsedAt: string | null
}

type CredentialRow = {
  credential_id: string
  user_id: string
  public_key: Uint8Array
  counter: string
  transports: ReadonlyArray<string>
  name: string
  created_at: Date | string
  last_used_at: Date | string | null
}

const toCredential = (row: CredentialRow): StoredCredential => ({
  credentialId: row.credential_id,
  userId: String(row.user_id),
  publicKey: new Uint8Array(row.public_key),
  counter: Number(row.counter),
  transports: row.transports,
  name: row.name,
  createdAt: isoTimestamp(row.created_at),
  lastUsedAt: isoTimestampOrNull(row.last_used_at)
})

/** The MFA tables (schema/0004_mfa.sql). Writes that use something up are single atomic UPDATEs. */
export class MfaRepo extends Context.Service<MfaRepo, {
  readonly state: (userId: string) => Effect.Effect<MfaState>
  /** Turns TOTP on with `secret`, marks `step` used and replaces the backup codes. */
  readonly enableTotp: (userId: string, secret: string, step: number, backupCodes: ReadonlyArray<string>) => Effect.Effect<void>
  /** TOTP off; SMS goes with it (it is a companion of TOTP), and the backup codes when nothing is left. */
  readonly disableTotp: (userId: string) => Effect.Effect<void>
  /** Every method and backup code gone at once (an operator's POST /admin/users/disable-mfa). */
  readonly disableAll: (userId: string) => Effect.Effect<void>
  /** Records `step` as used unless it (or a later one) was already: false means a replay. */
  readonly useTotpStep: (userId: string, step: number) => Effect.Effect<boolean>
  readonly backupCodes: (userId: string) => Effect.Effect<ReadonlyArray<BackupCode>>
  readonly replaceBackupCodes: (userId: string, codes: ReadonlyArray<string>) => Effect.Effect<void>
  /** Uses a backup code up; false when it is unknown or was used. */
  readonly useBackupCode: (userId: string, code: string) => Effect.Effect<boolean>
  readonly setSms: (userId: string, enabled: boolean) => Effect.Effect<void>
  readonly credentials: (userId: string) => Effect.Effect<ReadonlyArray<StoredCredential>>
  readonly credential: (credentialId: string) => Effect.Effect<StoredCredential | undefined>
  /** False when the credential id is registered already (to anyone). */
  readonly insertCredential: (credential: Omit<StoredCredential, "createdAt" | "lastUsedAt">) => Effect.Effect<boolean>
  readonly renameCredential: (userId: string, credentialId: string, name: string) => Effect.Effect<boolean>
  readonly deleteCredential: (userId: string, credentialId: string) => Effect.Effect<boolean>
  /** Stores the counter of a verified assertion, unless another one got there first with the same or a higher one. */
  readonly useCredential: (credentialId: string, counter: number) => Effect.Effect<boolean>
  /**
   * Counts one proof presented with a live MFA ticket (one_time_tokens, by its
   * hash) and answers its user; undefined when the ticket is unknown, used,
   * expired, or has had `max` attempts already.
   */
  readonly attemptTicket: (ticketHash: Buffer, max: number) => Effect.Effect<string | undefined>
}>()("guildhall/MfaRepo") {
  static readonly layer = Layer.effect(
    MfaRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      /** Backup codes outlive a method only while another one that accepts them is left. */
      const dropOrphanBackupCodes = (userId: string) =>
        sql`DELETE FROM mfa_backup_codes
            WHERE user_id = ${userId}
              AND NOT EXISTS (SELECT 1 FROM user_mfa WHERE user_id = ${userId} AND totp_secret IS NOT NULL)
              AND NOT EXISTS (SELECT 1 FROM webauthn_credentials WHERE user_id = ${userId})`

      const replaceBackupCodes = (userId: string, codes: ReadonlyArray<string>) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM mfa_backup_codes WHERE user_id = ${userId}`
          for (const code of codes) yield* sql`INSERT INTO mfa_backup_codes (user_id, code) VALUES (${userId}, ${code})`
        }))

      return MfaRepo.of({
        state: Effect.fn("MfaRepo.state")((userId) =>
          sql<{
            totp_secret: string | null
            totp_last_step: string | null
            sms_enabled_at: Date | string | null
            phone: string | null
            phone_verified_at: Date | string | null
            credentials: string
          }>`SELECT m.totp_secret, m.totp_last_step, m.sms_enabled_at, u.phone, u.phone_verified_at,
                    (SELECT count(*) FROM webauthn_credentials c WHERE c.user_id = u.id) AS credentials
             FROM users u LEFT JOIN user_mfa m ON m.user_id = u.id
             WHERE u.id = ${userId}`.pipe(
            Effect.map((rows): MfaState => {
              const row = rows[0]
              if (row === undefined) return { totpSecret: null, totpLastStep: null, smsEnabled: false, verifiedPhone: null, webauthnCredentials: 0 }
              return {
                totpSecret: row.totp_secret,
                totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step),
                smsEnabled: row.sms_enabled_at !== null,
                verifiedPhone: row.phone !== null && row.phone_verified_at !== null ? row.phone : null,
                webauthnCredentials: Number(row.credentials)
              }
            }),
            Effect.orDie
          )),
        enableTotp: Effect.fn("MfaRepo.enableTotp")((userId, secret, step, backupCodes) =>
          sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO user_mfa (user_id, totp_secret, totp_enabled_at, totp_last_step)
                       VALUES (${userId}, ${secret}, now(), ${step})
                       ON CONFLICT (user_id) DO UPDATE
                       SET totp_secret = EXCLUDED.totp_secret, totp_enabled_at = now(), totp_last_step = EXCLUDED.totp_last_step`
            yield* replaceBackupCodes(userId, backupCodes)
          })).pipe(Effect.orDie)),
        disableTotp: Effect.fn("MfaRepo.disableTotp")((userId) =>
          sql.withTransaction(Effect.gen(function*() {
            yield* sql`UPDATE user_mfa SET totp_secret = NULL, totp_enabled_at = NULL, sms_enabled_at = NULL WHERE user_id = ${userId}`
            yield* dropOrphanBackupCodes(userId)
          })).pipe(Effect.orDie)),
        disableAll: Effect.fn("MfaRepo.disableAll")((userId) =>
          sql.withTransaction(Effect.gen(function*() {
            yield* sql`UPDATE user_mfa SET totp_secret = NULL, totp_enabled_at = NULL, sms_enabled_at = NULL WHERE user_id = ${userId}`
            yield* sql`DELETE FROM webauthn_credentials WHERE user_id = ${userId}`
            yield* sql`DELETE FROM mfa_backup_codes WHERE user_id = ${userId}`
          })).pipe(Effect.orDie)),
        useTotpStep: Effect.fn("MfaRepo.useTotpStep")((userId, step) =>
          sql`UPDATE user_mfa SET totp_last_step = ${step}
              WHERE user_id = ${userId} AND totp_secret IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < ${step})
              RETURNING 1`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)),
        backupCodes: Effect.fn("MfaRepo.backupCodes")((userId) =>
          sql<{ code: string; consumed_at: Date | string | null }>`
            SELECT code, consumed_at FROM mfa_backup_codes WHERE user_id = ${userId} ORDER BY created_at, code`.pipe(
            Effect.map((rows) => rows.map((row) => ({ code: row.code, consumed: row.consumed_at !== null }))),
            Effect.orDie
          )),
        replaceBackupCodes: Effect.fn("MfaRepo.replaceBackupCodes")((userId, codes) =>
          replaceBackupCodes(userId, codes).pipe(Effect.orDie)),
        useBackupCode: Effect.fn("MfaRepo.useBackupCode")((userId, code) =>
          sql`UPDATE mfa_backup_codes SET consumed_at = now()
              WHERE user_id = ${userId} AND code = ${code} AND consumed_at IS NULL
              RETURNING 1`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)),
        setSms: Effect.fn("MfaRepo.setSms")((userId, enabled) =>
          sql`INSERT INTO user_mfa (user_id, sms_enabled_at) VALUES (${userId}, ${enabled ? new Date() : null})
              ON CONFLICT (user_id) DO UPDATE SET sms_enabled_at = EXCLUDED.sms_enabled_at`.pipe(Effect.asVoid, Effect.orDie)),
        credentials: Effect.fn("MfaRepo.credentials")((userId) =>
          sql<CredentialRow>`SELECT * FROM webauthn_credentials WHERE user_id = ${userId} ORDER BY created_at, credential_id`.pipe(
            Effect.map((rows) => rows.map(toCredential)),
            Effect.orDie
          )),
        credential: Effect.fn("MfaRepo.credential")((credentialId) =>
          sql<CredentialRow>`SELECT * FROM webauthn_credentials WHERE credential_id = ${credentialId}`.pipe(
            Effect.map((rows) => rows[0] === undefined ? undefined : toCredential(rows[0])),
            Effect.orDie
          )),
        insertCredential: Effect.fn("MfaRepo.insertCredential")((c) =>
          sql`INSERT INTO webauthn_credentials (credential_id, user_id, public_key, counter, transports, name)
              VALUES (${c.credentialId}, ${c.userId}, ${Buffer.from(c.publicKey)}, ${c.counter}, ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(c.transports)}::jsonb)), ${c.name})
              ON CONFLICT (credential_id) DO NOTHING
              RETURNING 1`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)),
        renameCredential: Effect.fn("MfaRepo.renameCredential")((userId, credentialId, name) =>
          sql`UPDATE webauthn_credentials SET name = ${name}
              WHERE user_id = ${userId} AND credential_id = ${credentialId}
              RETURNING 1`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)),
        deleteCredential: Effect.fn("MfaRepo.deleteCredential")((userId, credentialId) =>
          sql.withTransaction(Effect.gen(function*() {
            const rows = yield* sql`DELETE FROM webauthn_credentials
                                    WHERE user_id = ${userId} AND credential_id = ${credentialId} RETURNING 1`
            yield* dropOrphanBackupCodes(userId)
            return rows.length === 1
          })).pipe(Effect.orDie)),
        useCredential: Effect.fn("MfaRepo.useCredential")((credentialId, counter) =>
          sql`UPDATE webauthn_credentials SET counter = ${counter}, last_used_at = now()
              WHERE credential_id = ${credentialId} AND (counter < ${counter} OR (counter = 0 AND ${counter} = 0))
              RETURNING 1`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)),
        // Counted before the proof is checked, in one statement: parallel guesses cannot outrun the limit.
        attemptTicket: Effect.fn("MfaRepo.attemptTicket")((ticketHash, max) =>
          sql<{ user_id: string | null }>`
            UPDATE one_time_tokens
            SET data = jsonb_set(data, '{attempts}', to_jsonb(COALESCE((data->>'attempts')::int, 0) + 1))
            WHERE token_hash = ${ticketHash} AND kind = 'mfa_ticket' AND used_at IS NULL AND expires_at > now()
              AND COALESCE((data->>'attempts')::int, 0) < ${max}
            RETURNING user_id`.pipe(
            Effect.map((rows) => (rows[0]?.user_id == null ? undefined : String(rows[0].user_id))),
            Effect.orDie
          ))
      })
    })
  )
}
