import { Effect, Schema } from "effect"
import { ArchiveReads, type MessageKey } from "./Reads.ts"
import type { WriteText, ZipWriter } from "./Zip.ts"

/** The claim was lost (another process took the job): this run stops without touching it. */
export class LeaseLost extends Schema.TaggedError<LeaseLost>()("LeaseLost", {}) {}

/** The subject is gone: the job fails with this message. */
export class SubjectGone extends Schema.TaggedError<SubjectGone>()("SubjectGone", { message: Schema.String }) {}

/** Called after each step and page: renews the claim, records the progress, rests if configured. */
export type Tick = (step: string, percent: number) => Effect.Effect<void, LeaseLost>

/** A JSON array written a page at a time: `[`, the pages' rows, `]`. */
const jsonArray = (write: WriteText) => {
  let empty = true
  return {
    open: write("["),
    rows: (rows: ReadonlyArray<string>) =>
      Effect.suspend(() => {
        if (rows.length === 0) return Effect.void
        const text = (empty ? "\n" : ",\n") + rows.join(",\n")
        empty = false
        return write(text)
      }),
    close: Effect.suspend(() => write(empty ? "]\n" : "\n]\n"))
  }
}

const wholeArray = (zip: ZipWriter, name: string, rows: ReadonlyArray<string>) =>
  zip.file(name, (write) => {
    const array = jsonArray(write)
    return Effect.andThen(array.open, Effect.andThen(array.rows(rows), array.close))
  })

/** Of `total`, `done` so far, as a share of the span from `from` to `to` percent. */
const within = (from: number, to: number, done: number, total: number) =>
  Math.min(to, from + Math.floor(((to - from) * done) / Math.max(total, 1)))

/**
 * A user's archive: account.json, settings.json, relationships.json,
 * guilds.json (memberships), dm_channels.json, and messages.json with every
 * message they wrote, guild and DM (attachments as the links they were sent
 * with), written page by page.
 */
export const writeUserArchive = (zip: ZipWriter, userId: string, pageSize: number, tick: Tick) =>
  Effect.gen(function*() {
    const reads = yield* ArchiveReads
    yield* tick("account", 1)
    const account = yield* reads.account(userId)
    if (account === undefined) return yield* new SubjectGone({ message: "The user no longer exists" })
    yield* zip.file("account.json", (write) => write(`${account}\n`))
    const settings = yield* reads.settings(userId)
    yield* zip.file("settings.json", (write) => write(`${settings}\n`))
    yield* wholeArray(zip, "relationships.json", yield* reads.relationships(userId))
    yield* wholeArray(zip, "guilds.json", yield* reads.memberships(userId))
    yield* wholeArray(zip, "dm_channels.json", yield* reads.dmChannels(userId))
    const total = yield* reads.authoredCount(userId)
    yield* tick("messages", 5)
    yield* zip.file("messages.json", (write) =>
      Effect.gen(function*() {
        const array = jsonArray(write)
        yield* array.open
        let after: MessageKey | undefined
        let done = 0
        for (;;) {
          const page = yield* reads.authored(userId, after, pageSize)
          if (page.next === undefined) break
          yield* array.rows(page.rows)
          done += page.rows.length
          after = page.next
          yield* tick("messages", within(5, 95, done, total))
        }
        yield* array.close
      }))
  })

/**
 * A guild's archive: guild.json, channels.json, roles.json, members.json,
 * and messages/<channel_id>.json for each channel, written page by page.
 */
export const writeGuildArchive = (zip: ZipWriter, guildId: string, pageSize: number, tick: Tick) =>
  Effect.gen(function*() {
    const reads = yield* ArchiveReads
    yield* tick("guild", 1)
    const guild = yield* reads.guild(guildId)
    if (guild === undefined) return yield* new SubjectGone({ message: "The guild no longer exists" })
    yield* zip.file("guild.json", (write) => write(`${guild}\n`))
    const channels = yield* reads.channels(guildId)
    yield* wholeArray(zip, "channels.json", channels.map((c) => c.json))
    yield* wholeArray(zip, "roles.json", yield* reads.roles(guildId))

    const members = yield* reads.memberCount(guildId)
    yield* tick("members", 2)
    yield* zip.file("members.json", (write) =>
      Effect.gen(function*() {
        const array = jsonArray(write)
        yield* array.open
        let after: string | undefined
        let done = 0
        for (;;) {
          const page = yield* reads.members(guildId, after, pageSize)
          if (page.next === undefined) break
          yield* array.rows(page.rows)
          done += page.rows.length
          after = page.next
          yield* tick("members", within(2, 10, done, members))
        }
        yield* array.close
      }))

    const total = yield* reads.channelMessageCount(guildId)
    let done = 0
    yield* tick("messages", 10)
    for (const channel of channels) {
      yield* zip.file(`messages/${channel.id}.json`, (write) =>
        Effect.gen(function*() {
          const array = jsonArray(write)
          yield* array.open
          let after: string | undefined
          for (;;) {
            const page = yield* reads.channelMessages(channel.id, after, pageSize)
            if (page.next === undefined) break
            yield* array.rows(page.rows)
            done += page.rows.length
            after = page.next
            yield* tick("messages", within(10, 95, done, total))
          }
          yield* array.close
        }))
    }
  })
