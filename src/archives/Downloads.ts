import { Effect } from "effect"
import { BadRequest } from "../model/Errors.ts"
import { AppConfig } from "../platform/Config.ts"
import { ArchivesRepo, type ArchiveRow } from "./Repo.ts"
import { signedUrl } from "./Signing.ts"

const refused = (code: string, message: string) => new BadRequest({ code, message })

/**
 * A signed download URL of a finished archive, valid for
 * ARCHIVE_DOWNLOAD_URL_SECONDS (never past the archive's own expiry); the
 * row remembers when the last one expires. Refused while the archive is not
 * ready, when it failed, and once it expired.
 */
export const issueDownload = (row: ArchiveRow, downloadUrlSeconds: number) =>
  Effect.gen(function*() {
    if (row.status === "failed") return yield* refused("HARVEST_FAILED", "The export failed")
    if (row.status !== "completed") return yield* refused("HARVEST_NOT_READY", "The export is not ready yet")
    const now = Date.now()
    if (row.file_hash === null || row.expires_at === null || row.expires_at.getTime() <= now) {
      return yield* refused("HARVEST_EXPIRED", "The export has expired; ask for a new one")
    }
    const repo = yield* ArchivesRepo
    const { publicUrl } = yield* AppConfig
    const key = yield* repo.signingKey(row.id)
    if (key === undefined) return yield* refused("HARVEST_EXPIRED", "The export has expired; ask for a new one")
    const expires = Math.floor(Math.min(now + downloadUrlSeconds * 1000, row.expires_at.getTime()) / 1000)
    const expiresAt = new Date(expires * 1000)
    yield* repo.urlIssued(row.id, expiresAt)
    return { url: signedUrl(publicUrl, row.id, key, expires), expiresAt }
  })
