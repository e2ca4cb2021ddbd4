import { Layer } from "effect"
import { ReverseDns } from "../platform/ReverseDns.ts"
import { AdminUserLookup } from "./users/LookupRepo.ts"
import { AdminUserViews } from "./users/View.ts"
import { VoiceAdminRepo } from "./voice/Repo.ts"

/** The services the admin handlers need beyond the shared ones of src/App.ts. */
export const services = Layer.mergeAll(AdminUserViews.layer, AdminUserLookup.layer, VoiceAdminRepo.layer).pipe(Layer.provideMerge(ReverseDns.layer))
