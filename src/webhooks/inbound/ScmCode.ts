import { firstLine, webUrl } from "./Embeds.ts"
import { actor, excerpt, inRepository, ScmColour, type ScmRenderer, shortSha } from "./ScmRender.ts"

/** Commit lines end the description before its limit, the rest counted: a push of many commits stays readable. */
const MAX_COMMIT_LINES_LENGTH = 3900
const COMMIT_MESSAGE_LENGTH = 72

const BRANCH_PREFIX = "refs/heads/"

/** One line per commit: the linked short hash, the message's first line, the author. */
const commitLines = (commits: ReadonlyArray<{ id: string; url: string; message: string; author: { name: string } }>) => {
  const lines: Array<string> = []
  let length = 0
  for (const [index, commit] of commits.entries()) {
    const line = `[\`${shortSha(commit.id)}\`](${commit.url}) ${firstLine(commit.message, COMMIT_MESSAGE_LENGTH)} - ${commit.author.name}`
    if (length + line.length + 1 > MAX_COMMIT_LINES_LENGTH) {
      lines.push(`… and ${commits.length - index} more`)
      break
    }
    lines.push(line)
    length += line.length + 1
  }
  return lines.join("\n")
}

/**
 * Commits pushed to a branch, or a force push. A push that creates or deletes
 * a branch without commits, and a tag push, are left to the create and delete
 * events, which tell of them.
 */
export const push: ScmRenderer = (body) => {
  const { repository, ref } = body
  if (!repository || !ref?.startsWith(BRANCH_PREFIX) || body.deleted) return null
  const branch = ref.slice(BRANCH_PREFIX.length)
  const compare = webUrl(body.compare)
  if (body.forced) {
    const head = body.head_commit?.id ?? body.after
    if (!head) return null
    return {
      title: `[${repository.name}] Branch ${branch} was force-pushed to \`${shortSha(head)}\``,
      url: compare,
      description: compare === undefined ? undefined : `[Compare changes](${compare})`,
      color: ScmColour.attention,
      author: actor(body.sender)
    }
  }
  const commits = body.commits ?? []
  if (commits.length === 0) return null
  return {
    title: `[${repository.name}:${branch}] ${commits.length} new commit${commits.length === 1 ? "" : "s"}`,
    url: compare,
    description: commitLines(commits),
    color: ScmColour.commits,
    author: actor(body.sender)
  }
}

const refKind = (refType: string | null | undefined) =>
  refType === "branch" ? "branch" : refType === "tag" ? "tag" : undefined

/** A branch or a tag created. */
export const create: ScmRenderer = (body) => {
  const kind = refKind(body.ref_type)
  if (!body.repository || !body.ref || kind === undefined) return null
  return {
    title: inRepository(body.repository, `New ${kind} created: ${body.ref}`),
    url: webUrl(`${body.repository.html_url}/tree/${encodeURI(body.ref)}`),
    author: actor(body.sender)
  }
}

/** A branch or a tag deleted: the link goes to the repository, the ref being gone. */
export const remove: ScmRenderer = (body) => {
  const kind = refKind(body.ref_type)
  if (!body.repository || !body.ref || kind === undefined) return null
  return {
    title: inRepository(body.repository, `${kind === "branch" ? "Branch" : "Tag"} deleted: ${body.ref}`),
    url: webUrl(body.repository.html_url),
    color: ScmColour.neutral,
    author: actor(body.sender)
  }
}

/** A comment on a commit. */
export const commitComment: ScmRenderer = (body) => {
  const { repository, comment } = body
  if (!repository || body.action !== "created" || !comment?.commit_id) return null
  return {
    title: inRepository(repository, `New comment on commit \`${shortSha(comment.commit_id)}\``),
    url: webUrl(comment.html_url),
    description: excerpt(comment.body),
    color: ScmColour.comment,
    author: actor(body.sender)
  }
}
