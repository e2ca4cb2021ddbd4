import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as MemberRoles from "../../shards/guild/operations/MemberRoles.ts"
import * as RoleOrder from "../../shards/guild/operations/RoleOrder.ts"
import * as Roles from "../../shards/guild/operations/Roles.ts"
import { Actors } from "../guilds/Actors.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { RoleId } from "../model/Ids.ts"

/** Who acts and why, as a write takes it. */
const by = (headers: { readonly "x-audit-log-reason"?: string | undefined }) =>
  Effect.map(CurrentUser, (me) => ({ actorId: me.id, reason: headers["x-audit-log-reason"] ?? null }))

export const RolesHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "roles", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const snowflakes = yield* Snowflakes

    return handlers
      .handle("list", ({ params }) =>
        Effect.flatMap(CurrentUser, (me) => actors.read(params.guild_id, Roles.listRoles, {}, me.id)))
      .handle("create", ({ params, headers, payload }) =>
        Effect.flatMap(by(headers), (actor) =>
          actors.write(params.guild_id, Roles.createRole, { roleId: RoleId.make(snowflakes.next()), request: payload }, actor)))
      .handle("positions", ({ params, headers, payload }) =>
        Effect.flatMap(by(headers), (actor) =>
          Effect.asVoid(actors.write(params.guild_id, RoleOrder.updateRolePositions, { request: payload }, actor))))
      .handle("hoistPositions", ({ params, headers, payload }) =>
        Effect.flatMap(by(headers), (actor) =>
          Effect.asVoid(actors.write(params.guild_id, RoleOrder.updateHoistPositions, { request: payload }, actor))))
      .handle("resetHoistPositions", ({ params, headers }) =>
        Effect.flatMap(by(headers), (actor) =>
          Effect.asVoid(actors.write(params.guild_id, RoleOrder.resetHoistPositions, {}, actor))))
      .handle("update", ({ params, headers, payload }) =>
        Effect.flatMap(by(headers), (actor) =>
          actors.write(params.guild_id, Roles.updateRole, { roleId: params.role_id, request: payload }, actor)))
      .handle("delete", ({ params, headers }) =>
        Effect.flatMap(by(headers), (actor) =>
          Effect.asVoid(actors.write(params.guild_id, Roles.deleteRole, { roleId: params.role_id }, actor))))
      .handle("addMemberRole", ({ params, headers }) =>
        Effect.flatMap(by(headers), (actor) =>
          Effect.asVoid(actors.write(
            params.guild_id,
            MemberRoles.addMemberRole,
            { targetId: params.user_id, roleId: params.role_id },
            actor
          ))))
      .handle("removeMemberRole", ({ params, headers }) =>
        Effect.flatMap(by(headers), (actor) =>
          Effect.asVoid(actors.write(
            params.guild_id,
            MemberRoles.removeMemberRole,
            { targetId: params.user_id, roleId: params.role_id },
            actor
          ))))
  }))))
