import type { WebhookDraft } from "../Executor.ts"
import { embedDraft } from "./Embeds.ts"
import { checkRun, checkSuite } from "./ScmChecks.ts"
import { commitComment, create, push, remove } from "./ScmCode.ts"
import { issueComment, issues, pullRequest, pullRequestReview, pullRequestReviewComment } from "./ScmIssues.ts"
import type { ScmWebhook } from "./ScmPayload.ts"
import { discussion, discussionComment, fork, madePublic, member, release, watch } from "./ScmProject.ts"
import type { ScmRenderer } from "./ScmRender.ts"

export { ScmWebhook } from "./ScmPayload.ts"

/** The header naming a source-control event, as the hosting service (and its imitators) sends it. */
export const SCM_EVENT_HEADER = "x-github-event"

/**
 * The events rendered, by the name the event header gives. Any other event
 * (ping, the setup check, among them) is acknowledged and not posted.
 */
const renderers: Record<string, ScmRenderer> = {
  push,
  create,
  delete: remove,
  commit_comment: commitComment,
  issues,
  issue_comment: issueComment,
  pull_request: pullRequest,
  pull_request_review: pullRequestReview,
  pull_request_review_comment: pullRequestReviewComment,
  release,
  fork,
  watch,
  member,
  public: madePublic,
  discussion,
  discussion_comment: discussionComment,
  check_run: checkRun,
  check_suite: checkSuite
}

/** A source-control event as the message the webhook posts, or null for an event it does not tell of. */
export const scmDraft = (event: string, body: ScmWebhook): WebhookDraft | null => {
  const render = Object.hasOwn(renderers, event) ? renderers[event] : undefined
  const embed = render?.(body) ?? null
  return embed === null ? null : embedDraft(embed)
}
