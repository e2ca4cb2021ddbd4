import { MfaProofs } from "./Proofs.ts"

/** The services this domain's handlers need beyond the shared ones of src/App.ts; MfaProofs is used by others. */
export const services = MfaProofs.layerNone
