import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { AppConfig } from "../platform/Config.ts"
import { Limits } from "../platform/Limits.ts"
import { VoiceCatalog } from "../platform/VoiceCatalog.ts"
import { SsoSettings } from "../sso/Settings.ts"
import { serviceDocument } from "./Document.ts"

export const WellKnownHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "wellKnown", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const settings = yield* AppConfig
    const sso = yield* SsoSettings
    const limits = yield* Limits
    const voice = yield* VoiceCatalog
    // SSO settings and voice servers are read each time: an operator's change shows at once on every process.
    return handlers.handle("service", () =>
      Effect.zipWith(sso.get, voice.anyActive, (row, voiceOn) => serviceDocument(settings, row, limits.config(), voiceOn)))
  }))))
