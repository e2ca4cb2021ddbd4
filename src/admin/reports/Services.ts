import { Layer } from "effect"
import { services as reportServices } from "../../reports/Services.ts"
import { Authority } from "./Authority.ts"
import { AuthoritySubmissions } from "./AuthoritySubmissions.ts"
import { LegalHolds } from "./LegalHolds.ts"

/** Reports for reporters and staff: the repositories, legal holds and the authority's submissions. */
export const services = Layer.mergeAll(LegalHolds.layer, AuthoritySubmissions.layer.pipe(Layer.provide(Authority.layer))).pipe(
  Layer.provideMerge(reportServices)
)
