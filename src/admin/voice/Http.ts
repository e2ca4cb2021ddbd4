import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { VoiceCatalog, type VoiceRegion } from "../../platform/VoiceCatalog.ts"
import { AdminRepo } from "../Repo.ts"
import { VoiceAdminRepo } from "./Repo.ts"

/** What an operator changed, for the audit log: the fields they sent, the secret only as "changed". */
const metadataOf = (fields: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).flatMap(([name, value]): Array<[string, string]> => {
    if (value === undefined) return []
    if (name === "api_secret") return [[name, "changed"]]
    return [[name, typeof value === "string" ? value : JSON.stringify(value)]]
  }))

export const AdminVoiceHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "adminVoice", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* VoiceAdminRepo
    const catalog = yield* VoiceCatalog
    const admin = yield* AdminRepo

    const audit = (action: string, targetType: "voice_region" | "voice_server", targetId: string, fields: Record<string, unknown>) =>
      Effect.flatMap(CurrentOperator, (op) => admin.audit({ adminId: op.id, action, targetType, targetId, metadata: metadataOf(fields) }))
    const serverKey = (regionId: string, serverId: string) => `${regionId}/${serverId}`
    const withServers = (region: VoiceRegion, include: boolean) =>
      include ? Effect.map(catalog.servers(region.id), (servers) => ({ ...region, servers })) : Effect.succeed(region)

    return handlers
      .handle("createRegion", ({ payload }) =>
        Effect.gen(function*() {
          const region = yield* repo.createRegion(payload)
          yield* audit("create_voice_region", "voice_region", region.id, payload)
          return { region }
        }))
      .handle("updateRegion", ({ payload }) =>
        Effect.gen(function*() {
          const region = yield* repo.updateRegion(payload)
          yield* audit("update_voice_region", "voice_region", region.id, payload)
          return { region }
        }))
      .handle("deleteRegion", ({ payload }) =>
        Effect.gen(function*() {
          yield* repo.deleteRegion(payload.id)
          yield* audit("delete_voice_region", "voice_region", payload.id, payload)
          return { success: true }
        }))
      // Servers listed unless asked not to, as the production service's get does.
      .handle("getRegion", ({ payload }) =>
        Effect.gen(function*() {
          const region = yield* catalog.region(payload.id)
          return { region: region === undefined ? null : yield* withServers(region, payload.include_servers ?? true) }
        }))
      .handle("listRegions", ({ payload }) =>
        Effect.gen(function*() {
          const regions = yield* catalog.regions
          return { regions: yield* Effect.forEach(regions, (region) => withServers(region, payload.include_servers ?? false)) }
        }))
      .handle("createServer", ({ payload }) =>
        Effect.gen(function*() {
          const server = yield* repo.createServer(payload)
          yield* audit("create_voice_server", "voice_server", serverKey(server.region_id, server.server_id), payload)
          return { server }
        }))
      .handle("updateServer", ({ payload }) =>
        Effect.gen(function*() {
          const server = yield* repo.updateServer(payload)
          yield* audit("update_voice_server", "voice_server", serverKey(server.region_id, server.server_id), payload)
          return { server }
        }))
      .handle("deleteServer", ({ payload }) =>
        Effect.gen(function*() {
          yield* repo.deleteServer(payload.region_id, payload.server_id)
          yield* audit("delete_voice_server", "voice_server", serverKey(payload.region_id, payload.server_id), payload)
          return { success: true }
        }))
      .handle("getServer", ({ payload }) =>
        Effect.map(catalog.server(payload.region_id, payload.server_id), (server) => ({ server: server ?? null })))
      .handle("listServers", ({ payload }) => Effect.map(catalog.servers(payload.region_id), (servers) => ({ servers })))
  }))))
