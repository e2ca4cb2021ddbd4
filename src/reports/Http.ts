import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { BadRequest, Forbidden, invalidField, TooManyRequests, unknown } from "../model/Errors.ts"
import { UserFlags } from "../model/UserFlags.ts"
import { ChannelLookup } from "../messages/ChannelLookup.ts"
import { Dms } from "../dms/Dms.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import type { DsaReportRequest } from "./Api.ts"
import { ReportType, statusName } from "./Categories.ts"
import { DsaVerification } from "./Dsa.ts"
import { ReportEvidence } from "./Evidence.ts"
import { type NewReport, type Report, ReportsRepo } from "./Repo.ts"
import { ReportTargets } from "./Targets.ts"

/** Reports one user may file in an hour, beyond the route's burst limit. */
export const REPORTS_PER_HOUR = 30

const refuse = (code: string, message: string) => new BadRequest({ code, message })
const answer = (report: Report) => ({ report_id: report.id, status: statusName(report.status), reported_at: report.reportedAt })

/** A message link as clients copy it: .../channels/{guild id or @me}/{channel id}/{message id}. */
const MESSAGE_LINK = /\/channels\/(?:@me|[0-9]{1,19})\/([0-9]{1,19})\/([0-9]{1,19})(?:[/?#]|$)/

const ReportsHandlers = HttpApiBuilder.group(Api, "reports", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* ReportsRepo
    const targets = yield* ReportTargets
    const evidence = yield* ReportEvidence

    /** The reporter, if allowed to report now: not report-banned, under the hourly count. */
    const reporter = Effect.gen(function*() {
      const me = yield* CurrentUser
      const user = yield* targets.user(me.id)
      if (user === undefined) return yield* unknown("USER")
      if ((user.flags & UserFlags.REPORT_BANNED) !== 0n) {
        return yield* new Forbidden({ code: "REPORT_BANNED", message: "You have been banned from submitting reports" })
      }
      if ((yield* repo.madeSince(me.id, new Date(Date.now() - 3600_000))) >= REPORTS_PER_HOUR) {
        return yield* new TooManyRequests({ code: "RATE_LIMITED", message: "You are filing reports too quickly", retry_after: 3600, global: false })
      }
      return { id: me.id, email: user.email }
    })

    const file = (report: NewReport) => Effect.map(repo.create(report), answer)

    return handlers
      .handle("reportMessage", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* reporter
          const found = yield* evidence.ofMessage(me.id, payload.channel_id, payload.message_id)
          if (found.authorId === me.id) return yield* refuse("CANNOT_REPORT_OWN_MESSAGE", "Cannot report your own message")
          return yield* file({
            reportType: ReportType.MESSAGE,
            category: payload.category,
            additionalInfo: payload.additional_info,
            reporterId: me.id,
            reporterEmail: me.email,
            reportedUserId: found.authorId,
            reportedUserAvatarHash: found.authorAvatar,
            reportedMessageId: payload.message_id,
            reportedChannelId: payload.channel_id,
            reportedChannelName: found.channelName,
            reportedGuildId: found.guildId ?? undefined,
            reportedGuildName: found.guildName ?? undefined,
            guildContextId: found.guildId ?? undefined,
            messageContext: found.context
          })
        }))
      .handle("reportUser", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* reporter
          if (payload.user_id === me.id) return yield* refuse("CANNOT_REPORT_YOURSELF", "Cannot report yourself")
          const target = yield* targets.user(payload.user_id)
          if (target === undefined) return yield* unknown("USER")
          return yield* file({
            reportType: ReportType.USER,
            category: payload.category,
            additionalInfo: payload.additional_info,
            reporterId: me.id,
            reporterEmail: me.email,
            reportedUserId: target.id,
            reportedUserAvatarHash: target.avatar,
            guildContextId: payload.guild_id
          })
        }))
      .handle("reportGuild", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* reporter
          const guild = yield* targets.guild(payload.guild_id)
          if (guild === undefined) return yield* unknown("GUILD")
          if (guild.ownerId === me.id) return yield* refuse("CANNOT_REPORT_OWN_GUILD", "Cannot report your own guild")
          return yield* file({
            reportType: ReportType.GUILD,
            category: payload.category,
            additionalInfo: payload.additional_info,
            reporterId: me.id,
            reporterEmail: me.email,
            reportedGuildId: guild.id,
            reportedGuildName: guild.name,
            guildContextId: guild.id
          })
        }))
  })))

const DsaHandlers = HttpApiBuilder.group(Api, "dsaReports", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* ReportsRepo
    const targets = yield* ReportTargets
    const evidence = yield* ReportEvidence
    const dsa = yield* DsaVerification

    /** The report's subject, as the form names it; UNKNOWN_* when it names nothing. */
    const subject = (r: DsaReportRequest) =>
      Effect.gen(function*() {
        switch (r.report_type) {
          case "message": {
            const link = MESSAGE_LINK.exec(r.message_link)
            if (link === null || link[1] === undefined || link[2] === undefined) {
              return yield* invalidField("message_link", "INVALID_MESSAGE_LINK", "Not a link to a message")
            }
            const found = yield* evidence.stored(link[1], link[2])
            const partial: Partial<NewReport> = {
              reportedUserId: found.authorId,
              reportedUserAvatarHash: found.authorAvatar,
              reportedMessageId: link[2],
              reportedChannelId: link[1],
              reportedChannelName: found.channelName,
              reportedGuildId: found.guildId ?? undefined,
              reportedGuildName: found.guildName ?? undefined,
              guildContextId: found.guildId ?? undefined,
              messageContext: found.context
            }
            return { reportType: ReportType.MESSAGE, ...partial }
          }
          case "user": {
            const target = r.user_id !== undefined
              ? yield* targets.user(r.user_id)
              : r.user_tag !== undefined ? yield* targets.userByTag(r.user_tag) : undefined
            if (r.user_id === undefined && r.user_tag === undefined) {
              return yield* invalidField("user_id", "BASE_TYPE_REQUIRED", "Either user_id or user_tag must be given")
            }
            if (target === undefined) return yield* unknown("USER")
            return { reportType: ReportType.USER, reportedUserId: target.id, reportedUserAvatarHash: target.avatar }
          }
          case "guild": {
            const guild = yield* targets.guild(r.guild_id)
            if (guild === undefined) return yield* unknown("GUILD")
            return {
              reportType: ReportType.GUILD,
              reportedGuildId: guild.id,
              reportedGuildName: guild.name,
              reportedGuildInviteCode: r.invite_code,
              guildContextId: guild.id
            }
          }
        }
      })

    return handlers
      .handle("sendCode", ({ payload }) => Effect.as(dsa.send(payload.email), { ok: true as const }))
      .handle("verifyCode", ({ payload }) => Effect.map(dsa.verify(payload.email, payload.code), (ticket) => ({ ticket })))
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const email = yield* dsa.emailOf(payload.ticket)
          const about = yield* subject(payload)
          const report = yield* repo.create({
            ...about,
            category: payload.category,
            additionalInfo: payload.additional_info,
            reporterEmail: email,
            reporterFullLegalName: payload.reporter_full_legal_name,
            reporterCountryOfResidence: payload.reporter_country_of_residence
          })
          yield* dsa.spend(payload.ticket)
          return answer(report)
        }))
  })))

/** The report routes, with their rate limiting. */
export const ReportsHttp = Layer.mergeAll(perRequestMiddlewaresOnly(ReportsHandlers), perRequestMiddlewaresOnly(DsaHandlers)).pipe(
  Layer.provide([RateLimitLive, ReportEvidence.layer.pipe(Layer.provide([ChannelLookup.layer, Dms.layer]))])
)
