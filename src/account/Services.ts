import { Layer } from "effect"
import { EmailChange } from "./EmailChange.ts"
import { AccountLifecycle } from "./Lifecycle.ts"
import { PasswordChange } from "./PasswordChange.ts"

/** The services this domain's handlers need beyond the shared ones of src/App.ts. */
export const services = Layer.mergeAll(EmailChange.layer, PasswordChange.layer, AccountLifecycle.layer)
