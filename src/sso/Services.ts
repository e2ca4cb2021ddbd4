import { Layer } from "effect"
import { SsoAccounts } from "./Accounts.ts"
import { SsoFlow } from "./Flow.ts"
import { RelyingParty } from "./RelyingParty.ts"
import { SsoSettings } from "./Settings.ts"

const parts = Layer.mergeAll(SsoSettings.layer, RelyingParty.layer, SsoAccounts.layer)

/** The services this domain's handlers need beyond the shared ones of src/App.ts. */
export const services = SsoFlow.layer.pipe(Layer.provideMerge(parts))
