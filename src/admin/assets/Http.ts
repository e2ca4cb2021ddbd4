import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { adminPurgeExpression } from "../../../shards/guild/operations/AdminAssets.ts"
import { Actors } from "../../guilds/Actors.ts"
import { AUDIT_REASON_HEADER, decodeAuditReason } from "../../guilds/AuditReason.ts"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { MediaStore } from "../../media/MediaStore.ts"
import type { ObjectStoreError } from "../../media/S3Store.ts"
import type { BadRequest, Forbidden, NotFound, Unavailable } from "../../model/Errors.ts"
import { AdminRepo } from "../Repo.ts"
import type { PurgeGuildAssetResult } from "./Api.ts"
import { AssetsRepo } from "./Repo.ts"

/** One id's outcome: what was purged, or why it could not be. */
type Outcome = { readonly processed: PurgeGuildAssetResult } | { readonly error: { readonly id: string; readonly error: string } }

const AdminAssetsHandlers = HttpApiBuilder.group(Api, "adminAssets", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* AssetsRepo
    const actors = yield* Actors
    const media = yield* MediaStore
    const admin = yield* AdminRepo

    /**
     * The emoji or sticker removed through its guild's actor (its members see
     * the list change), then its image, unless another expression shows the
     * same bytes (the store is content-addressed). An id that is neither is
     * recorded as purged, not found, as production answers it.
     */
    const purgeOne = (id: string, operatorId: string, reason: string | null): Effect.Effect<Outcome> =>
      Effect.gen(function*(): Effect.fn.Return<Outcome, BadRequest | Forbidden | NotFound | Unavailable | ObjectStoreError> {
        const found = yield* repo.find(id)
        if (found === undefined) {
          yield* admin.audit({ adminId: operatorId, action: "purge_asset", targetType: "asset", targetId: id, metadata: { asset_type: "unknown" } })
          return { processed: { id, asset_type: "unknown", found_in_db: false, guild_id: null } }
        }
        const hash = yield* actors.write(found.guildId, adminPurgeExpression, { kind: found.kind, id }, { actorId: operatorId, reason })
        if (hash !== null && !(yield* repo.inUse(hash))) yield* media.remove(hash)
        yield* admin.audit({
          adminId: operatorId,
          action: `purge_guild_${found.kind}_asset`,
          targetType: `guild_${found.kind}`,
          targetId: id,
          metadata: { asset_type: found.kind, guild_id: found.guildId }
        })
        return { processed: { id, asset_type: found.kind, found_in_db: true, guild_id: found.guildId } }
      }).pipe(Effect.catch((failure) => Effect.succeed({ error: { id, error: failure.message } })))

    return handlers.handle("purge", ({ payload, request }) =>
      Effect.gen(function*() {
        const operator = yield* CurrentOperator
        // The guild's audit entries take the operator's reason, as the admin audit log does.
        const reason = decodeAuditReason(request.headers[AUDIT_REASON_HEADER])
        const outcomes = yield* Effect.forEach([...new Set(payload.ids)], (id) => purgeOne(id, operator.id, reason))
        return {
          processed: outcomes.flatMap((o) => ("processed" in o ? [o.processed] : [])),
          errors: outcomes.flatMap((o) => ("error" in o ? [o.error] : []))
        }
      }))
  })))

/** POST /admin/assets/purge, with the lookup of ids across guilds. */
export const AdminAssetsHttp = perRequestMiddlewaresOnly(AdminAssetsHandlers).pipe(Layer.provide(AssetsRepo.layer))
