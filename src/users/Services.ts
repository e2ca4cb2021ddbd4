import { Layer } from "effect"

/** The services this domain's handlers need beyond the shared ones of src/App.ts. */
export const services = Layer.empty
