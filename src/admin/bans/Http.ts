import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { invalidField } from "../../model/Errors.ts"
import { formatNetwork, parseAddress, parseNetwork } from "../../platform/IpAddress.ts"
import { ReverseDns } from "../../platform/ReverseDns.ts"
import { AdminRepo } from "../Repo.ts"
import { IpBanList } from "./IpBanList.ts"
import { BansRepo } from "./Repo.ts"

/** Reverse lookups of one list in flight at once: each is bounded in time (ReverseDns.ts). */
const LOOKUPS_AT_ONCE = 16

const notAnIp = () => invalidField("ip", "INVALID_IP", "Must be a valid IPv4/IPv6 address or CIDR range")

export const AdminBansHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "adminBans", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* BansRepo
    const admin = yield* AdminRepo
    const ipBans = yield* IpBanList
    const reverseDns = yield* ReverseDns

    /** The operator's act in the admin audit log; the subject is its target and its metadata. */
    const audit = (action: string, targetType: "ip" | "email" | "phone" | "snowflake_reservation", subject: string, metadata: Record<string, string>) =>
      Effect.flatMap(CurrentOperator, (op) => admin.audit({ adminId: op.id, action, targetType, targetId: subject, metadata }))

    const network = (text: string) => {
      const parsed = parseNetwork(text)
      return parsed === undefined ? Effect.fail(notAnIp()) : Effect.succeed(parsed)
    }

    return handlers
      .handle("addIpBan", ({ payload }) =>
        Effect.gen(function*() {
          const range = yield* network(payload.ip)
          yield* repo.addIp(range)
          // Refused here and on every other API process before the operator hears back.
          yield* ipBans.changed
          const ip = formatNetwork(range)
          yield* audit("ban_ip", "ip", ip, { ip })
        }))
      .handle("removeIpBan", ({ payload }) =>
        Effect.gen(function*() {
          const range = yield* network(payload.ip)
          yield* repo.removeIp(range)
          yield* ipBans.changed
          const ip = formatNetwork(range)
          yield* audit("unban_ip", "ip", ip, { ip })
        }))
      // Whether a banned range holds the address (or the whole range) asked about.
      .handle("checkIpBan", ({ payload }) =>
        Effect.flatMap(network(payload.ip), (range) => Effect.map(repo.ipBanned(range), (banned) => ({ banned }))))
      .handle("listIpBans", ({ payload }) =>
        Effect.gen(function*() {
          const ips = yield* repo.ips(payload.limit)
          const bans = yield* Effect.forEach(ips, (ip) =>
            ip.includes("/") || parseAddress(ip) === undefined
              ? Effect.succeed({ ip, reverse_dns: null })
              : Effect.map(reverseDns.lookup(ip), (name) => ({ ip, reverse_dns: name })), { concurrency: LOOKUPS_AT_ONCE })
          return { bans }
        }))
      .handle("addEmailBan", ({ payload }) =>
        Effect.andThen(repo.addEmail(payload.email), audit("ban_email", "email", payload.email.toLowerCase(), { email: payload.email.toLowerCase() })))
      .handle("removeEmailBan", ({ payload }) =>
        Effect.andThen(repo.removeEmail(payload.email), audit("unban_email", "email", payload.email.toLowerCase(), { email: payload.email.toLowerCase() })))
      .handle("checkEmailBan", ({ payload }) => Effect.map(repo.emailBanned(payload.email), (banned) => ({ banned })))
      .handle("listEmailBans", ({ payload }) => Effect.map(repo.emails(payload.limit), (bans) => ({ bans })))
      .handle("addPhoneBan", ({ payload }) =>
        Effect.andThen(repo.addPhone(payload.phone), audit("ban_phone", "phone", payload.phone, { phone: payload.phone })))
      .handle("removePhoneBan", ({ payload }) =>
        Effect.andThen(repo.removePhone(payload.phone), audit("unban_phone", "phone", payload.phone, { phone: payload.phone })))
      .handle("checkPhoneBan", ({ payload }) => Effect.map(repo.phoneBanned(payload.phone), (banned) => ({ banned })))
      .handle("listPhoneBans", ({ payload }) => Effect.map(repo.phones(payload.limit), (bans) => ({ bans })))
      .handle("addSnowflakeReservation", ({ payload }) =>
        Effect.gen(function*() {
          const email = payload.email.toLowerCase()
          yield* repo.reserve(email, payload.snowflake)
          yield* audit("set_snowflake_reservation", "snowflake_reservation", email, { email, snowflake: payload.snowflake })
          return { success: true as const }
        }))
      .handle("deleteSnowflakeReservation", ({ payload }) =>
        Effect.gen(function*() {
          const email = payload.email.toLowerCase()
          yield* repo.unreserve(email)
          yield* audit("delete_snowflake_reservation", "snowflake_reservation", email, { email })
          return { success: true as const }
        }))
      .handle("listSnowflakeReservations", () => Effect.map(repo.reservations, (reservations) => ({ reservations })))
  }))))
