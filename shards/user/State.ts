import type { GuildId } from "../../src/model/Ids.ts"
import type { RelationshipType } from "../../src/model/Relationships.ts"
import type { StoredSettings } from "../../src/model/Settings.ts"
import type { Account } from "./AccountView.ts"
import type { PendingDeletion, UserPartialResponse } from "../../src/model/Users.ts"

/** What another user is to this one (operations/Relationships.ts). */
export interface Relationship {
  readonly type: RelationshipType
  /** What the user calls a friend; only friends have one. */
  readonly nickname: string | null
  /** When this type began: ISO 8601. */
  readonly since: string
  /** The other user as of the last change of the relationship or the actor's load. */
  readonly user: UserPartialResponse
}
import { listsBytes, type UserLists } from "./Lists.ts"

/**
 * What a user's actor keeps of the person: everything their own reads show,
 * loaded from Postgres when the actor starts. No secret is kept: the password
 * hash and MFA secrets stay in Postgres, read only for the check that needs them.
 */
export interface UserState extends UserLists {
  readonly account: Account
  /** 0 TOTP, 2 WebAuthn: what `mfa_enabled` and `authenticator_types` show. */
  readonly authenticatorTypes: ReadonlyArray<number>
  readonly pendingDeletion: PendingDeletion | null
  /** `user_settings.data`: the settings the user changed (theme and locale are the account's). */
  readonly settings: StoredSettings
  /** Notes on other users, by their id. */
  readonly notes: ReadonlyMap<string, string>
  /** The guilds the user is in; guild actors tell the actor of joins and leaves. */
  readonly guilds: ReadonlySet<GuildId>
  /** Friends, requests both ways and blocks, by the other user's id. */
  readonly relationships: ReadonlyMap<string, Relationship>
}

/** Approximate bytes of the state, for the gateway stats. */
export const approximateBytes = (s: UserState): number => {
  let notes = 0
  for (const [id, note] of s.notes) notes += id.length + note.length * 2 + 64
  return 600 + JSON.stringify(s.account).length * 2 + JSON.stringify(s.settings).length * 2 + notes + s.guilds.size * 64 +
    s.relationships.size * 400 + listsBytes(s)
}
