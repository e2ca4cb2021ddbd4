import { Handoffs } from "./Handoffs.ts"

/** The services this domain's handlers need beyond the shared ones of src/App.ts. */
export const services = Handoffs.layer
