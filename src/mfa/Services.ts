import { Layer } from "effect"
import { MfaProofsLive } from "./ProofsLive.ts"
import { MfaRepo } from "./Repo.ts"
import { SmsCodes } from "./SmsCodes.ts"
import { WebAuthnCeremonies } from "./WebAuthn.ts"

const ceremonies = Layer.mergeAll(SmsCodes.layer, WebAuthnCeremonies.layer).pipe(Layer.provideMerge(MfaRepo.layer))

/**
 * The services this domain's handlers need beyond the shared ones of src/App.ts;
 * MfaProofs is also what sudo mode and the login flows ask.
 */
export const services = MfaProofsLive.pipe(Layer.provideMerge(ceremonies))
