import { webUrl } from "./Embeds.ts"
import { actor, excerpt, inRepository, ScmColour, type ScmRenderer } from "./ScmRender.ts"

/** A release published, with an excerpt of its notes. */
export const release: ScmRenderer = (body) => {
  const { repository, release } = body
  if (!repository || !release || body.action !== "published") return null
  return {
    title: inRepository(repository, `New ${release.prerelease ? "pre-release" : "release"} published: ${release.tag_name}`),
    url: webUrl(release.html_url),
    description: excerpt(release.body),
    color: ScmColour.release,
    author: actor(body.sender)
  }
}

/** The repository forked: the link goes to the fork. */
export const fork: ScmRenderer = (body) => {
  const { repository, forkee } = body
  if (!repository || !forkee) return null
  return {
    title: inRepository(repository, `Fork created: ${forkee.full_name}`),
    url: webUrl(forkee.html_url),
    author: actor(body.sender)
  }
}

/**
 * The repository starred. The hosting service sends a star both as `watch`
 * (started) and as `star` (created); only `watch` is rendered, so a webhook
 * subscribed to everything posts it once.
 */
export const watch: ScmRenderer = (body) => {
  const { repository } = body
  if (!repository || body.action !== "started") return null
  return { title: inRepository(repository, "New star added"), url: webUrl(repository.html_url), author: actor(body.sender) }
}

/** A collaborator added: the link goes to their profile. */
export const member: ScmRenderer = (body) => {
  const { repository, member } = body
  if (!repository || !member || body.action !== "added") return null
  return {
    title: inRepository(repository, `New collaborator added: ${member.login}`),
    url: webUrl(member.html_url),
    author: actor(body.sender)
  }
}

/** A private repository made public. */
export const madePublic: ScmRenderer = (body) => {
  const { repository } = body
  if (!repository) return null
  return {
    title: inRepository(repository, "Now open source"),
    url: webUrl(repository.html_url),
    color: ScmColour.open,
    author: actor(body.sender)
  }
}

/** A discussion started (with an excerpt of its body) or answered (with an excerpt of the answer). */
export const discussion: ScmRenderer = (body) => {
  const { repository, discussion } = body
  if (!repository || !discussion) return null
  switch (body.action) {
    case "created":
      return {
        title: inRepository(repository, `New discussion #${discussion.number}: ${discussion.title}`),
        url: webUrl(discussion.html_url),
        description: excerpt(discussion.body),
        color: ScmColour.discussion,
        author: actor(body.sender)
      }
    case "answered":
      return {
        title: inRepository(repository, `Discussion answered: #${discussion.number} ${discussion.title}`),
        url: webUrl(body.answer?.html_url) ?? webUrl(discussion.answer_html_url) ?? webUrl(discussion.html_url),
        description: excerpt(body.answer?.body),
        color: ScmColour.open,
        author: actor(body.sender)
      }
    default:
      return null
  }
}

/** A comment on a discussion. */
export const discussionComment: ScmRenderer = (body) => {
  const { repository, discussion, comment } = body
  if (!repository || !discussion || !comment || body.action !== "created") return null
  return {
    title: inRepository(repository, `New comment on discussion #${discussion.number}: ${discussion.title}`),
    url: webUrl(comment.html_url),
    description: excerpt(comment.body),
    color: ScmColour.discussion,
    author: actor(body.sender)
  }
}
