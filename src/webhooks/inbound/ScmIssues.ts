import { webUrl } from "./Embeds.ts"
import { actor, excerpt, inRepository, ScmColour, type ScmRenderer } from "./ScmRender.ts"

/** An issue opened (with an excerpt of its body), closed (completed or not planned) or reopened. */
export const issues: ScmRenderer = (body) => {
  const { repository, issue } = body
  if (!repository || !issue) return null
  const named = `#${issue.number} ${issue.title}`
  const rendered = (what: string, color: number, description?: string) => ({
    title: inRepository(repository, `${what}: ${named}`),
    url: webUrl(issue.html_url),
    description,
    color,
    author: actor(body.sender)
  })
  switch (body.action) {
    case "opened":
      return rendered("Issue opened", ScmColour.open, excerpt(issue.body))
    case "closed":
      return issue.state_reason === "not_planned"
        ? rendered("Issue closed as not planned", ScmColour.neutral)
        : rendered("Issue closed", ScmColour.done)
    case "reopened":
      return rendered("Issue reopened", ScmColour.attention)
    default:
      return null
  }
}

/** A comment on an issue or on a pull request (the hosting service sends both as issue comments). */
export const issueComment: ScmRenderer = (body) => {
  const { repository, issue, comment } = body
  if (!repository || !issue || !comment || body.action !== "created") return null
  const kind = issue.pull_request ? "pull request" : "issue"
  return {
    title: inRepository(repository, `New comment on ${kind} #${issue.number}: ${issue.title}`),
    url: webUrl(comment.html_url),
    description: excerpt(comment.body),
    color: ScmColour.comment,
    author: actor(body.sender)
  }
}

/** A pull request opened (with an excerpt of its body), merged, closed unmerged, reopened or marked ready for review. */
export const pullRequest: ScmRenderer = (body) => {
  const { repository, pull_request: pr } = body
  if (!repository || !pr) return null
  const rendered = (what: string, color: number, description?: string) => ({
    title: inRepository(repository, `${what}: #${pr.number} ${pr.title}`),
    url: webUrl(pr.html_url),
    description,
    color,
    author: actor(body.sender)
  })
  switch (body.action) {
    case "opened":
      return rendered(pr.draft ? "Draft pull request opened" : "Pull request opened", ScmColour.open, excerpt(pr.body))
    case "closed":
      return pr.merged ? rendered("Pull request merged", ScmColour.done) : rendered("Pull request closed", ScmColour.failed)
    case "reopened":
      return rendered("Pull request reopened", ScmColour.attention)
    case "ready_for_review":
      return rendered("Pull request ready for review", ScmColour.open)
    default:
      return null
  }
}

/**
 * A review submitted: approved, changes requested, or comments. A "commented"
 * review without a body is the wrapper of single line comments, which the
 * review comment event tells of.
 */
export const pullRequestReview: ScmRenderer = (body) => {
  const { repository, pull_request: pr, review } = body
  if (!repository || !pr || !review || body.action !== "submitted") return null
  const description = excerpt(review.body)
  const rendered = (title: string, color: number) => ({
    title: inRepository(repository, title),
    url: webUrl(review.html_url),
    description,
    color,
    author: actor(body.sender)
  })
  switch (review.state.toLowerCase()) {
    case "approved":
      return rendered(`Pull request approved: #${pr.number} ${pr.title}`, ScmColour.open)
    case "changes_requested":
      return rendered(`Changes requested on pull request #${pr.number}: ${pr.title}`, ScmColour.failed)
    case "commented":
      return description === undefined ? null : rendered(`New review on pull request #${pr.number}: ${pr.title}`, ScmColour.comment)
    default:
      return null
  }
}

/** A comment on a line of a pull request's diff. */
export const pullRequestReviewComment: ScmRenderer = (body) => {
  const { repository, pull_request: pr, comment } = body
  if (!repository || !pr || !comment || body.action !== "created") return null
  return {
    title: inRepository(repository, `New review comment on pull request #${pr.number}: ${pr.title}`),
    url: webUrl(comment.html_url),
    description: excerpt(comment.body),
    color: ScmColour.comment,
    author: actor(body.sender)
  }
}
