import { Layer } from "effect"
import { PhoneNumbers } from "./PhoneNumbers.ts"
import { PhoneRepo } from "./Repo.ts"

/** The services this domain's handlers need beyond the shared ones of src/App.ts. */
export const services = PhoneNumbers.layer.pipe(Layer.provideMerge(PhoneRepo.layer))
