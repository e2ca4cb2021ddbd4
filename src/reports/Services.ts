import { Layer } from "effect"
import { DsaVerification } from "./Dsa.ts"
import { ReportsRepo } from "./Repo.ts"
import { ReportTargets } from "./Targets.ts"

/** The services of reports shared by the reporters' routes and staff's. */
export const services = Layer.mergeAll(ReportsRepo.layer, ReportTargets.layer, DsaVerification.layer)
