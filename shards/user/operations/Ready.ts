import { Effect, Schema } from "effect"
import { CarriedId } from "../../../src/model/Ids.ts"
import { RelationshipResponse } from "../../../src/model/Relationships.ts"
import { UserSettingsResponse } from "../../../src/model/Settings.ts"
import { UserPrivateResponse } from "../../../src/model/Users.ts"
import { read } from "../Definitions.ts"
import { privateView } from "./Account.ts"
import { relationshipsView } from "./Relationships.ts"
import { settingsView } from "./Settings.ts"

const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : 1)

/** What a new gateway session's READY takes of the user's own state, in one call. */
export const readyState = read(
  "ReadyState",
  {},
  Schema.Struct({
    user: UserPrivateResponse,
    user_settings: UserSettingsResponse,
    guild_ids: Schema.Array(CarriedId.GuildId),
    relationships: Schema.Array(RelationshipResponse)
  }),
  (state) =>
    Effect.sync(() => ({
      user: privateView(state),
      user_settings: settingsView(state, new Date()),
      guild_ids: [...state.guilds].sort(byId),
      relationships: relationshipsView(state)
    }))
)

export const readyReads = [readyState] as const
