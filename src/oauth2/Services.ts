import { Layer } from "effect"
import { Applications } from "./Applications.ts"
import { BotProfiles } from "./BotProfiles.ts"
import { BotTokens } from "./BotTokens.ts"
import { OAuth2Clients } from "./Clients.ts"
import { OAuth2Grants } from "./Grants.ts"
import { ApplicationsRepo } from "./Repo.ts"

/**
 * The services this domain's handlers need beyond the shared ones of src/App.ts.
 * BotTokens is among them because user authentication takes bot tokens too.
 * Consent and removal reach the guild actors, so their Http layers provide them.
 */
export const services = Layer.mergeAll(Applications.layer, BotProfiles.layer, OAuth2Clients.layer, OAuth2Grants.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(ApplicationsRepo.layer, BotTokens.layer))
)
