import { Layer } from "effect"
import { Relationships } from "./Relationships.ts"
import { RelationshipsRepo } from "./Repo.ts"

/** The services this domain's handlers need beyond the shared ones of src/App.ts. */
export const services = Relationships.layer.pipe(Layer.provideMerge(RelationshipsRepo.layer))
