import type { RichEmbedRequest } from "../../model/MessageRequests.ts"
import { clip, EXCERPT, webUrl } from "./Embeds.ts"
import type { ScmUser, ScmWebhook } from "./ScmPayload.ts"

/** What every source-control event renderer is: its payload to one embed, or null for an event (or action) it ignores. */
export type ScmRenderer = (body: ScmWebhook) => RichEmbedRequest | null

export type Repository = NonNullable<ScmWebhook["repository"]>

/** The colours of the hosting services' own chat integrations, by what happened. */
export const ScmColour = {
  commits: 0x7289da,
  /** A force push, something reopened, an action a check needs. */
  attention: 0xfcbd1f,
  /** Opened, approved, passed, answered. */
  open: 0x2da44e,
  /** Closed unmerged, failed, changes requested. */
  failed: 0xcf222e,
  /** Completed or merged. */
  done: 0x8250df,
  /** Not planned, cancelled. */
  neutral: 0x6e7781,
  comment: 0xc00a7f,
  release: 0x1f6feb,
  discussion: 0xe6c2b0
} as const

/** Who did it, linked to their profile with their avatar. */
export const actor = (user: ScmUser): NonNullable<RichEmbedRequest["author"]> => ({
  name: user.login,
  url: webUrl(user.html_url),
  icon_url: webUrl(user.avatar_url)
})

/** `[owner/name] what happened`: the title line every event but push and checks starts with. */
export const inRepository = (repository: Repository, what: string) => `[${repository.full_name}] ${what}`

/** An excerpt of a body (issue, comment, review, release notes), or nothing for an empty one. */
export const excerpt = (body: string | null | undefined): string | undefined => {
  const text = body?.trim() ?? ""
  return text === "" ? undefined : clip(text, EXCERPT)
}

/** A commit's abbreviated hash, as the hosting services show it. */
export const shortSha = (sha: string) => sha.slice(0, 7)
