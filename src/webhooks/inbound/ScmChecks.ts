import { webUrl } from "./Embeds.ts"
import { actor, excerpt, ScmColour, type ScmRenderer, shortSha } from "./ScmRender.ts"

/**
 * How a completed check ended, in words and colour. Skipped and stale checks
 * (and any conclusion not known here) are not worth a message.
 */
const outcomes: Record<string, { readonly verb: string; readonly color: number }> = {
  success: { verb: "succeeded", color: ScmColour.open },
  failure: { verb: "failed", color: ScmColour.failed },
  timed_out: { verb: "timed out", color: ScmColour.failed },
  startup_failure: { verb: "failed to start", color: ScmColour.failed },
  action_required: { verb: "needs action", color: ScmColour.attention },
  cancelled: { verb: "was cancelled", color: ScmColour.neutral },
  neutral: { verb: "finished", color: ScmColour.neutral }
}

const outcomeOf = (conclusion: string | null | undefined) =>
  conclusion === null || conclusion === undefined ? undefined : outcomes[conclusion]

/** Where a check ran: its branch, or the commit when it ran outside one (a fork's pull request). */
const where = (suite: { head_branch?: string | null | undefined; head_sha: string }) =>
  suite.head_branch ? suite.head_branch : `\`${shortSha(suite.head_sha)}\``

/** One check (a CI job) completed: linked to its run, with its output's title. */
export const checkRun: ScmRenderer = (body) => {
  const { repository, check_run: run } = body
  const outcome = outcomeOf(run?.conclusion)
  if (!repository || !run || body.action !== "completed" || outcome === undefined) return null
  return {
    title: `[${repository.name}] ${run.name} ${outcome.verb} on ${where(run.check_suite)}`,
    url: webUrl(run.html_url) ?? webUrl(run.details_url),
    description: excerpt(run.output?.title),
    color: outcome.color,
    author: actor(body.sender)
  }
}

/** Every check of an app on a commit completed: linked to the commit. */
export const checkSuite: ScmRenderer = (body) => {
  const { repository, check_suite: suite } = body
  const outcome = outcomeOf(suite?.conclusion)
  if (!repository || !suite || body.action !== "completed" || outcome === undefined) return null
  return {
    title: `[${repository.name}] ${suite.app.name} checks ${outcome.verb} on ${where(suite)}`,
    url: webUrl(`${repository.html_url}/commit/${suite.head_sha}`),
    color: outcome.color,
    author: actor(body.sender)
  }
}
