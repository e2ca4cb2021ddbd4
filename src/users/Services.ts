import { Layer } from "effect"
import { ShownConnections } from "../connections/Shown.ts"
import { SelfDeletionRepo } from "../messages/selfDeletion/Repo.ts"
import { UserLinks } from "./Links.ts"
import { Profiles } from "./Profiles.ts"
import { UserUpdates } from "./Updates.ts"
import { MemberUsers } from "../guilds/MemberUsers.ts"

/** The services this domain's handlers need beyond the shared ones of src/App.ts. */
export const services = Layer.mergeAll(Profiles.layer, UserUpdates.layer).pipe(
  Layer.provideMerge(MemberUsers.layer),
  Layer.provide([UserLinks.layer, SelfDeletionRepo.layer, ShownConnections.layer])
)
