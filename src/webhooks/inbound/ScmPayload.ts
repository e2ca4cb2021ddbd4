import { Schema } from "effect"
import { nullish, SenderId } from "./Payloads.ts"

/*
 * A source-control event as the hosting service posts it (GitHub's webhook
 * payloads, which other hosts imitate): the spec's ScmWebhook, plus the
 * optional fields the rendering reads (merged, state_reason, output, ...).
 * Senders add many more fields, which decoding ignores; only what every
 * payload of an event carries is required, so any event decodes and the
 * event name (a header) decides what is read.
 */

export const ScmUser = Schema.Struct({
  id: SenderId,
  login: Schema.String,
  html_url: Schema.String,
  avatar_url: Schema.String
})
export type ScmUser = typeof ScmUser.Type

const Commit = Schema.Struct({
  id: Schema.String,
  message: Schema.String,
  url: Schema.String,
  author: Schema.Struct({ name: Schema.String, username: nullish(Schema.String) })
})

const Repository = Schema.Struct({
  id: SenderId,
  name: Schema.String,
  full_name: Schema.String,
  html_url: Schema.String
})

const Comment = Schema.Struct({
  id: SenderId,
  body: Schema.String,
  html_url: Schema.String,
  user: ScmUser,
  commit_id: nullish(Schema.String)
})

/** What issues and pull requests share: a numbered, titled thread someone opened. */
const Thread = {
  id: SenderId,
  number: Schema.Number,
  title: Schema.String,
  body: nullish(Schema.String),
  html_url: Schema.String,
  user: ScmUser
}

const Issue = Schema.Struct({
  ...Thread,
  /** Why it was closed: `completed` or `not_planned`. */
  state_reason: nullish(Schema.String),
  /** Present when the issue is a pull request (comments on pull requests arrive as issue comments). */
  pull_request: nullish(Schema.Struct({}))
})

const PullRequest = Schema.Struct({
  ...Thread,
  merged: nullish(Schema.Boolean),
  draft: nullish(Schema.Boolean)
})

const Discussion = Schema.Struct({
  number: Schema.Number,
  title: Schema.String,
  body: nullish(Schema.String),
  html_url: Schema.String,
  answer_html_url: nullish(Schema.String),
  user: ScmUser
})

const Release = Schema.Struct({
  id: SenderId,
  tag_name: Schema.String,
  name: nullish(Schema.String),
  body: nullish(Schema.String),
  html_url: Schema.String,
  prerelease: nullish(Schema.Boolean)
})

const Review = Schema.Struct({
  state: Schema.String,
  body: nullish(Schema.String),
  html_url: Schema.String,
  user: ScmUser
})

const CheckSuite = Schema.Struct({
  conclusion: nullish(Schema.String),
  head_branch: nullish(Schema.String),
  head_sha: Schema.String,
  app: Schema.Struct({ name: Schema.String })
})

const CheckRun = Schema.Struct({
  name: Schema.String,
  conclusion: nullish(Schema.String),
  html_url: Schema.String,
  details_url: nullish(Schema.String),
  check_suite: CheckSuite,
  output: nullish(Schema.Struct({ title: nullish(Schema.String), summary: nullish(Schema.String) }))
})

export const ScmWebhook = Schema.Struct({
  sender: ScmUser,
  action: nullish(Schema.String),
  ref: nullish(Schema.String),
  ref_type: nullish(Schema.String),
  compare: nullish(Schema.String),
  forced: nullish(Schema.Boolean),
  /** The branch's new head: what a force push went to when it left no head commit. */
  after: nullish(Schema.String),
  created: nullish(Schema.Boolean),
  deleted: nullish(Schema.Boolean),
  commits: nullish(Schema.Array(Commit)),
  head_commit: nullish(Commit),
  repository: nullish(Repository),
  forkee: nullish(Repository),
  issue: nullish(Issue),
  pull_request: nullish(PullRequest),
  comment: nullish(Comment),
  answer: nullish(Comment),
  discussion: nullish(Discussion),
  release: nullish(Release),
  review: nullish(Review),
  member: nullish(ScmUser),
  check_run: nullish(CheckRun),
  check_suite: nullish(CheckSuite)
})
export type ScmWebhook = typeof ScmWebhook.Type
