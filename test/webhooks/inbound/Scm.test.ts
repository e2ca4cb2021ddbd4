import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { scmDraft, ScmWebhook } from "../../../src/webhooks/inbound/Scm.ts"
import { expectPostable, fixture, onlyEmbed, rawFixture, refuses } from "./Fixtures.ts"

const mona = {
  name: "mona",
  url: "https://github.com/mona",
  icon_url: "https://avatars.githubusercontent.com/u/21031067?v=4"
}
const commitUrl = (sha: string) => `https://github.com/octo-org/harbor/commit/${sha}`

describe("source-control events", () => {
  it("a push of three commits: one line per commit, linked, with its first line and author", () => {
    const embed = onlyEmbed(scmDraft("push", fixture("scm-push.json", ScmWebhook)))
    expect(embed).toEqual({
      title: "[harbor:main] 3 new commits",
      url: "https://github.com/octo-org/harbor/compare/9049f1265b7d...a1b2c3d4e5f6",
      description: [
        `[\`0d1a26e\`](${commitUrl("0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c")}) Fix the anchor chain length - Mona Lisa`,
        `[\`3c4f2a1\`](${commitUrl("3c4f2a1b9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b")}) Add a lighthouse - Hubot`,
        `[\`a1b2c3d\`](${commitUrl("a1b2c3d4e5f60718293a4b5c6d7e8f9012345678")}) Bump the sail version to 2.1.0 - Mona Lisa`
      ].join("\n"),
      color: 0x7289da,
      author: mona
    })
  })

  it("a force push: the branch, its new head and a link to compare", () => {
    const embed = onlyEmbed(scmDraft("push", fixture("scm-force-push.json", ScmWebhook)))
    expect(embed).toEqual({
      title: "[harbor] Branch feature/sails was force-pushed to `3c4f2a1`",
      url: "https://github.com/octo-org/harbor/compare/5f4e3d2c1b0a...3c4f2a1b9e8d",
      description: "[Compare changes](https://github.com/octo-org/harbor/compare/5f4e3d2c1b0a...3c4f2a1b9e8d)",
      color: 0xfcbd1f,
      author: mona
    })
  })

  it("long commit messages and many commits still make a valid message", () => {
    const raw = rawFixture("scm-push.json")
    const commit = {
      id: "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c",
      message: `${"Anchor ".repeat(2000)}\n\nbody`,
      url: commitUrl("0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"),
      author: { name: "Mona Lisa" }
    }
    const embed = onlyEmbed(scmDraft("push", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, commits: Array(200).fill(commit) })))
    expect(embed?.title).toBe("[harbor:main] 200 new commits")
    const lines = embed?.description?.split("\n") ?? []
    // Each message cut to its first line's first 72 code points; the lines that do not fit counted.
    expect(lines[0]).toBe(`[\`0d1a26e\`](${commitUrl(commit.id)}) ${"Anchor ".repeat(11).slice(0, 71)}… - Mona Lisa`)
    expect(lines.at(-1)).toBe(`… and ${200 - (lines.length - 1)} more`)
    expect(embed?.description?.length).toBeLessThanOrEqual(4096)
  })

  it("a push that only deletes a branch, or pushes a tag, is left to the create and delete events", () => {
    const raw = rawFixture("scm-push.json")
    expect(scmDraft("push", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, deleted: true, commits: [] }))).toBeNull()
    expect(scmDraft("push", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, ref: "refs/tags/v2.1.0" }))).toBeNull()
    expect(scmDraft("push", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, commits: [] }))).toBeNull()
  })

  it("a branch created, linked to its tree", () => {
    const embed = onlyEmbed(scmDraft("create", fixture("scm-create-branch.json", ScmWebhook)))
    expect(embed).toEqual({
      title: "[octo-org/harbor] New branch created: feature/sails",
      url: "https://github.com/octo-org/harbor/tree/feature/sails",
      author: mona
    })
  })

  it("an issue opened: an excerpt of its long body", () => {
    const payload = fixture("scm-issue-opened.json", ScmWebhook)
    const body = payload.issue?.body ?? ""
    expect(body.length).toBeGreaterThan(1500)
    const embed = onlyEmbed(scmDraft("issues", payload))
    expect(embed).toEqual({
      title: "[octo-org/harbor] Issue opened: #1347 Anchor drops twice",
      url: "https://github.com/octo-org/harbor/issues/1347",
      description: `${body.slice(0, 499).trimEnd()}…`,
      color: 0x2da44e,
      author: mona
    })
  })

  it("an issue closed as completed or as not planned, and a title beyond the embed's limit", () => {
    const raw = rawFixture("scm-issue-opened.json")
    const issue = { ...(Schema.decodeUnknownSync(Schema.Record(Schema.String, Schema.Unknown))(raw.issue)) }
    const closed = scmDraft("issues", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, action: "closed", issue: { ...issue, state_reason: "completed" } }))
    expect(onlyEmbed(closed)).toEqual({
      title: "[octo-org/harbor] Issue closed: #1347 Anchor drops twice",
      url: "https://github.com/octo-org/harbor/issues/1347",
      color: 0x8250df,
      author: mona
    })
    const longTitle = "Chain ".repeat(60)
    const notPlanned = scmDraft(
      "issues",
      Schema.decodeUnknownSync(ScmWebhook)({ ...raw, action: "closed", issue: { ...issue, title: longTitle, state_reason: "not_planned" } })
    )
    const embed = onlyEmbed(notPlanned)
    expect(embed?.color).toBe(0x6e7781)
    expect([...(embed?.title ?? "")]).toHaveLength(256)
    expect(embed?.title).toBe(`${`[octo-org/harbor] Issue closed as not planned: #1347 ${longTitle}`.slice(0, 255).trimEnd()}…`)
    expect(scmDraft("issues", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, action: "labeled" }))).toBeNull()
  })

  it("a pull request merged", () => {
    const embed = onlyEmbed(scmDraft("pull_request", fixture("scm-pull-request-merged.json", ScmWebhook)))
    expect(embed).toEqual({
      title: "[octo-org/harbor] Pull request merged: #1348 Measure the chain in metres",
      url: "https://github.com/octo-org/harbor/pull/1348",
      color: 0x8250df,
      author: mona
    })
  })

  it("a pull request closed unmerged, and a comment on it (sent as an issue comment)", () => {
    const raw = rawFixture("scm-pull-request-merged.json")
    const pr = Schema.decodeUnknownSync(Schema.Record(Schema.String, Schema.Unknown))(raw.pull_request)
    const closed = onlyEmbed(scmDraft("pull_request", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, pull_request: { ...pr, merged: false } })))
    expect(closed?.title).toBe("[octo-org/harbor] Pull request closed: #1348 Measure the chain in metres")
    expect(closed?.color).toBe(0xcf222e)

    const comment = {
      id: 1,
      body: "Do we need a migration?",
      html_url: "https://github.com/octo-org/harbor/pull/1348#issuecomment-1",
      user: raw.sender
    }
    const onPullRequest = Schema.decodeUnknownSync(ScmWebhook)({
      action: "created",
      issue: { ...pr, pull_request: { url: "https://api.github.com/repos/octo-org/harbor/pulls/1348" } },
      comment,
      repository: raw.repository,
      sender: raw.sender
    })
    expect(onlyEmbed(scmDraft("issue_comment", onPullRequest))).toEqual({
      title: "[octo-org/harbor] New comment on pull request #1348: Measure the chain in metres",
      url: "https://github.com/octo-org/harbor/pull/1348#issuecomment-1",
      description: "Do we need a migration?",
      color: 0xc00a7f,
      author: mona
    })
  })

  it("a review approved", () => {
    const embed = onlyEmbed(scmDraft("pull_request_review", fixture("scm-review-approved.json", ScmWebhook)))
    expect(embed).toEqual({
      title: "[octo-org/harbor] Pull request approved: #1348 Measure the chain in metres",
      url: "https://github.com/octo-org/harbor/pull/1348#pullrequestreview-80",
      description: "Looks good, ship it!",
      color: 0x2da44e,
      author: mona
    })
  })

  it("changes requested, and a bodiless commented review (the wrapper of line comments) ignored", () => {
    const raw = rawFixture("scm-review-approved.json")
    const review = Schema.decodeUnknownSync(Schema.Record(Schema.String, Schema.Unknown))(raw.review)
    const withReview = (changes: Record<string, unknown>) =>
      scmDraft("pull_request_review", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, review: { ...review, ...changes } }))
    const requested = onlyEmbed(withReview({ state: "changes_requested", body: "Please add a test." }))
    expect(requested?.title).toBe("[octo-org/harbor] Changes requested on pull request #1348: Measure the chain in metres")
    expect(requested?.color).toBe(0xcf222e)
    expect(withReview({ state: "commented", body: null })).toBeNull()
    expect(withReview({ state: "dismissed" })).toBeNull()
  })

  it("a release published, with its notes", () => {
    const embed = onlyEmbed(scmDraft("release", fixture("scm-release-published.json", ScmWebhook)))
    expect(embed).toEqual({
      title: "[octo-org/harbor] New release published: v2.1.0",
      url: "https://github.com/octo-org/harbor/releases/tag/v2.1.0",
      description: "## What's changed\n* Chains in metres by @hubot in #1348",
      color: 0x1f6feb,
      author: mona
    })
  })

  it("a check run failed, linked to the job, with its output's title", () => {
    const embed = onlyEmbed(scmDraft("check_run", fixture("scm-check-run-failed.json", ScmWebhook)))
    expect(embed).toEqual({
      title: "[harbor] build (ubuntu-latest) failed on metres",
      url: "https://github.com/octo-org/harbor/actions/runs/9000000000/job/24800000000",
      description: "2 tests failed",
      color: 0xcf222e,
      author: {
        name: "github-actions[bot]",
        url: "https://github.com/apps/github-actions",
        icon_url: "https://avatars.githubusercontent.com/in/15368?v=4"
      }
    })
  })

  it("a check suite that succeeded links to the commit; skipped and unfinished checks are ignored", () => {
    const raw = rawFixture("scm-check-run-failed.json")
    const run = Schema.decodeUnknownSync(Schema.Record(Schema.String, Schema.Unknown))(raw.check_run)
    const suite = Schema.decodeUnknownSync(Schema.Record(Schema.String, Schema.Unknown))(run.check_suite)
    const suiteEvent = (conclusion: string, action = "completed") =>
      scmDraft("check_suite", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, action, check_suite: { ...suite, conclusion } }))
    expect(onlyEmbed(suiteEvent("success"))).toMatchObject({
      title: "[harbor] GitHub Actions checks succeeded on metres",
      url: "https://github.com/octo-org/harbor/commit/6dcb09b5b57875f334f61aebed695e2e4193db5e",
      color: 0x2da44e
    })
    expect(suiteEvent("skipped")).toBeNull()
    expect(suiteEvent("success", "requested")).toBeNull()
  })

  it("a discussion answered, linked to the answer", () => {
    const embed = onlyEmbed(scmDraft("discussion", fixture("scm-discussion-answered.json", ScmWebhook)))
    expect(embed).toEqual({
      title: "[octo-org/harbor] Discussion answered: #90 How long should the chain be?",
      url: "https://github.com/octo-org/harbor/discussions/90#discussioncomment-544078",
      description: "Three times the depth of the water.",
      color: 0x2da44e,
      author: mona
    })
  })

  it("the setup ping and events not rendered are ignored", () => {
    const ping = fixture("scm-ping.json", ScmWebhook)
    expect(scmDraft("ping", ping)).toBeNull()
    expect(scmDraft("marketplace_purchase", ping)).toBeNull()
    expect(scmDraft("", ping)).toBeNull()
    expect(scmDraft("toString", ping)).toBeNull()
  })

  it("fork, star and collaborator events", () => {
    const raw = rawFixture("scm-create-branch.json")
    const forkee = { id: 2, name: "harbor", full_name: "hubot/harbor", html_url: "https://github.com/hubot/harbor", owner: {} }
    expect(onlyEmbed(scmDraft("fork", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, forkee })))).toEqual({
      title: "[octo-org/harbor] Fork created: hubot/harbor",
      url: "https://github.com/hubot/harbor",
      author: mona
    })
    expect(onlyEmbed(scmDraft("watch", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, action: "started" })))).toEqual({
      title: "[octo-org/harbor] New star added",
      url: "https://github.com/octo-org/harbor",
      author: mona
    })
    const member = { id: 1, login: "hubot", html_url: "https://github.com/hubot", avatar_url: "https://avatars.githubusercontent.com/u/1?v=4" }
    expect(onlyEmbed(scmDraft("member", Schema.decodeUnknownSync(ScmWebhook)({ ...raw, action: "added", member })))).toEqual({
      title: "[octo-org/harbor] New collaborator added: hubot",
      url: "https://github.com/hubot",
      author: mona
    })
  })

  it("a tag deleted, a commit comment, a review comment, a discussion started and commented, a repository made public", () => {
    const raw = rawFixture("scm-discussion-answered.json")
    const decode = Schema.decodeUnknownSync(ScmWebhook)
    const comment = {
      id: 9,
      body: "Nice catch",
      html_url: "https://github.com/octo-org/harbor/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c#commitcomment-9",
      user: raw.sender,
      commit_id: "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"
    }
    const base = { repository: raw.repository, sender: raw.sender }
    expect(onlyEmbed(scmDraft("delete", decode({ ...base, ref: "v1.0.0", ref_type: "tag", pusher_type: "user" })))).toEqual({
      title: "[octo-org/harbor] Tag deleted: v1.0.0",
      url: "https://github.com/octo-org/harbor",
      color: 0x6e7781,
      author: mona
    })
    expect(onlyEmbed(scmDraft("commit_comment", decode({ ...base, action: "created", comment })))).toEqual({
      title: "[octo-org/harbor] New comment on commit `0d1a26e`",
      url: comment.html_url,
      description: "Nice catch",
      color: 0xc00a7f,
      author: mona
    })
    const pr = rawFixture("scm-pull-request-merged.json").pull_request
    expect(onlyEmbed(scmDraft("pull_request_review_comment", decode({ ...base, action: "created", comment, pull_request: pr })))?.title)
      .toBe("[octo-org/harbor] New review comment on pull request #1348: Measure the chain in metres")
    expect(onlyEmbed(scmDraft("discussion", decode({ ...raw, action: "created" })))).toEqual({
      title: "[octo-org/harbor] New discussion #90: How long should the chain be?",
      url: "https://github.com/octo-org/harbor/discussions/90",
      description: "Asking for a friend.",
      color: 0xe6c2b0,
      author: mona
    })
    expect(onlyEmbed(scmDraft("discussion_comment", decode({ ...raw, action: "created", comment })))?.title)
      .toBe("[octo-org/harbor] New comment on discussion #90: How long should the chain be?")
    expect(onlyEmbed(scmDraft("public", decode(base)))?.title).toBe("[octo-org/harbor] Now open source")
    expect(scmDraft("discussion", decode({ ...raw, action: "labeled" }))).toBeNull()
  })

  it("every fixture renders a postable message", () => {
    for (const [event, name] of [
      ["push", "scm-push.json"],
      ["push", "scm-force-push.json"],
      ["create", "scm-create-branch.json"],
      ["issues", "scm-issue-opened.json"],
      ["pull_request", "scm-pull-request-merged.json"],
      ["pull_request_review", "scm-review-approved.json"],
      ["release", "scm-release-published.json"],
      ["check_run", "scm-check-run-failed.json"],
      ["discussion", "scm-discussion-answered.json"]
    ] as const) {
      expectPostable(scmDraft(event, fixture(name, ScmWebhook)))
    }
  })
})

describe("the source-control payload schema", () => {
  it("refuses a payload without its sender, or with a sender missing a required field", () => {
    const raw = rawFixture("scm-push.json")
    const { sender, ...withoutSender } = raw
    expect(refuses(ScmWebhook, withoutSender)).toBe(true)
    const sent = Schema.decodeUnknownSync(Schema.Record(Schema.String, Schema.Unknown))(sender)
    const { login: _, ...senderWithoutLogin } = sent
    expect(refuses(ScmWebhook, { ...raw, sender: senderWithoutLogin })).toBe(true)
    expect(refuses(ScmWebhook, { ...raw, commits: [{ id: "abc" }] })).toBe(true)
    expect(refuses(ScmWebhook, raw)).toBe(false)
  })
})
