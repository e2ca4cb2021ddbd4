import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { heldAmong } from "../../../shards/actors/LegalHolds.ts"
import { adminDeleteDmMessages } from "../../../shards/dm/operations/AdminMessages.ts"
import { adminDeleteMessage } from "../../../shards/guild/operations/AdminMessages.ts"
import { Dms } from "../../dms/Dms.ts"
import { Actors } from "../../guilds/Actors.ts"
import { auditReason } from "../../guilds/AuditReason.ts"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { ChannelLookup } from "../../messages/ChannelLookup.ts"
import { MessagesRepo } from "../../messages/Repo.ts"
import { underLegalHold, unknown } from "../../model/Errors.ts"
import type { MessageResponse } from "../../model/Messages.ts"
import { Snowflakes } from "../../platform/Snowflake.ts"
import { AdminRepo } from "../Repo.ts"
import type { AdminMessage } from "./Api.ts"
import { AdminMessageJobs } from "./JobsRepo.ts"
import { AdminMessageReads } from "./Reads.ts"

/** Production's default: 50 messages around the one looked up, half on each side. */
const DEFAULT_CONTEXT = 50

const adminView = (m: MessageResponse): AdminMessage => ({
  id: m.id,
  channel_id: m.channel_id,
  author_id: m.author.id,
  author_username: m.author.username,
  author_discriminator: m.author.discriminator,
  content: m.content,
  timestamp: m.timestamp,
  attachments: m.attachments.map((a) => ({ filename: a.filename, url: a.url ?? "" }))
})

const AdminMessagesHandlers = HttpApiBuilder.group(Api, "adminMessages", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const admin = yield* AdminRepo
    const actors = yield* Actors
    const dms = yield* Dms
    const channels = yield* ChannelLookup
    const messages = yield* MessagesRepo
    const reads = yield* AdminMessageReads
    const jobs = yield* AdminMessageJobs
    const snowflakes = yield* Snowflakes

    const audit = (action: string, targetType: string, targetId: string, metadata: Record<string, string>) =>
      Effect.flatMap(CurrentOperator, (op) => admin.audit({ adminId: op.id, action, targetType, targetId, metadata }))

    /** The message with up to `contextLimit` of its channel's messages around it, oldest first. */
    const lookup = (channelId: string, messageId: string, contextLimit = DEFAULT_CONTEXT) =>
      Effect.gen(function*() {
        const side = Math.floor(contextLimit / 2)
        // Pages come newest first.
        const before = side === 0 ? [] : yield* messages.page(channelId, { limit: side, before: messageId })
        const target = yield* messages.find(channelId, messageId)
        const after = side === 0 ? [] : yield* messages.page(channelId, { limit: side, after: messageId })
        const all = [...[...before].reverse(), ...(target === undefined ? [] : [target]), ...[...after].reverse()]
        return { message_id: messageId, messages: all.map(adminView) }
      })

    const stored = (channelId: string, messageId: string) =>
      Effect.flatMap(messages.find(channelId, messageId), (found) =>
        found === undefined ? Effect.fail(unknown("MESSAGE")) : Effect.succeed(found))

    return handlers
      .handle("lookup", ({ payload }) => lookup(payload.channel_id, payload.message_id, payload.context_limit))
      .handle("lookupByAttachment", ({ payload }) =>
        Effect.gen(function*() {
          const messageId = yield* reads.byAttachment(payload.channel_id, payload.attachment_id, payload.filename)
          if (messageId === undefined) return { message_id: null, messages: [] }
          return yield* lookup(payload.channel_id, messageId, payload.context_limit)
        }))
      .handle("delete", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const { channel_id: channelId, message_id: messageId } = payload
          const held = yield* Effect.provideService(heldAmong([messageId]), SqlClient.SqlClient, sql)
          if (held.size > 0) return yield* underLegalHold("This message is")
          yield* channels.byOwner(channelId, {
            dm: () =>
              Effect.flatMap(stored(channelId, messageId), (message) =>
                dms.write(channelId, adminDeleteDmMessages, {
                  authorId: message.author.id,
                  messages: [{ id: message.id, content: message.content }]
                }, { actorId: op.id })),
            guild: (guildId) =>
              Effect.gen(function*() {
                // The actor's window has the newer messages; this copy stands in for an older one.
                const current = yield* messages.find(channelId, messageId)
                const reason = yield* auditReason
                yield* actors.write(guildId, adminDeleteMessage, { channelId, messageId, current }, { actorId: op.id, reason })
              })
          })
          yield* audit("delete_message", "message", messageId, { channel_id: channelId, message_id: messageId })
          return { success: true as const }
        }))
      .handle("shred", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const jobId = snowflakes.next()
          yield* jobs.createShred({ id: jobId, adminId: op.id, userId: payload.user_id, entries: payload.entries })
          yield* audit("queue_message_shred", "message_shred", payload.user_id, {
            user_id: payload.user_id,
            job_id: jobId,
            requested_entries: String(payload.entries.length)
          })
          return { success: true as const, job_id: jobId, requested: payload.entries.length }
        }))
      .handle("deleteAll", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const dryRun = payload.dry_run ?? true
          const counts = yield* reads.countByAuthor(payload.user_id)
          const reply = { success: true as const, dry_run: dryRun, ...counts }
          const jobId = dryRun || counts.message_count === 0 ? undefined : snowflakes.next()
          if (jobId !== undefined) yield* jobs.createDeleteAll({ id: jobId, adminId: op.id, userId: payload.user_id })
          yield* audit(dryRun ? "delete_all_user_messages_dry_run" : "delete_all_user_messages", "message_deletion", payload.user_id, {
            user_id: payload.user_id,
            channel_count: String(counts.channel_count),
            message_count: String(counts.message_count),
            dry_run: String(dryRun),
            ...(jobId === undefined ? {} : { job_id: jobId })
          })
          return jobId === undefined ? reply : { ...reply, job_id: jobId }
        }))
      .handle("shredStatus", ({ payload }) =>
        Effect.map(jobs.progress(payload.job_id), (progress) => progress ?? { status: "not_found" as const }))
  })))

/** POST /admin/messages/*: lookups, an operator's delete, and the shred and delete-all jobs (Job.ts carries them out). */
export const AdminMessagesHttp = perRequestMiddlewaresOnly(AdminMessagesHandlers).pipe(
  Layer.provide([ChannelLookup.layer, MessagesRepo.layer, Dms.layer, AdminMessageReads.layer, AdminMessageJobs.layer])
)
