import { NotesRepo } from "./Repo.ts"

/** The services this domain's handlers need beyond the shared ones of src/App.ts. */
export const services = NotesRepo.layer
