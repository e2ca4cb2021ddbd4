import { Layer } from "effect"
import { SettingsRepo } from "./Repo.ts"
import { UserSettings } from "./Settings.ts"

/** The services this domain's handlers need beyond the shared ones of src/App.ts. */
export const services = UserSettings.layer.pipe(Layer.provide(SettingsRepo.layer))
