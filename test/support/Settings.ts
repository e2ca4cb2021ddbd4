import { ConfigProvider, Effect, Exit } from "effect"
import { AppConfig } from "../../src/platform/Config.ts"

/** The settings as a process started with exactly `env` would read them. */
export const settingsFrom = (env: Record<string, string>) =>
  Effect.gen(function*() {
    return yield* AppConfig
  }).pipe(
    Effect.provide(AppConfig.layer),
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env)),
    Effect.exit
  )

/** Why the settings were refused, or "" when they were not. */
export const failure = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? String(exit.cause) : "")
