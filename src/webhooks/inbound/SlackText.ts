/*
 * Slack's message text ("mrkdwn") as the markdown messages here are written
 * in: its `<url|label>` links, `<@user>` and `<#channel>` references and
 * `<!here>`-style commands become text, `*bold*` and `~strike~` take their
 * markdown form, and the three entities Slack escapes are restored. Code is
 * left as it is.
 */

const CODE = /(```[\s\S]*?```|`[^`\n]*`)/

/** A mass mention written for Slack stays text here: a zero-width space keeps it from notifying anyone. */
const quiet = (text: string) => text.replace(/@(everyone|here|channel)\b/g, "@\u200b$1")

const unescape = (text: string) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")

/** A link label keeps its brackets from closing the markdown link early. */
const label = (text: string) => text.replace(/[[\]]/g, (bracket) => `\\${bracket}`)

/** One `<...>` reference of Slack's text, as plain text or a markdown link. */
const reference = (inner: string): string => {
  const bar = inner.indexOf("|")
  const target = bar === -1 ? inner : inner.slice(0, bar)
  const shown = bar === -1 ? undefined : inner.slice(bar + 1)
  switch (target[0]) {
    case "@":
      return `@${shown ?? target.slice(1)}`
    case "#":
      return `#${shown ?? target.slice(1)}`
    case "!":
      // <!here>, <!channel>, <!everyone>; <!subteam^ID|@team>, <!date^...|fallback> carry their own text.
      return shown ?? `@${target.slice(1).split("^")[0] ?? ""}`
    default: {
      if (target.startsWith("mailto:")) return shown ?? target.slice("mailto:".length)
      return shown === undefined ? target : `[${label(shown)}](${target})`
    }
  }
}

const prose = (text: string) =>
  text
    .replace(/<([^<>\n]+)>/g, (_, inner: string) => reference(inner))
    .replace(/(^|[^\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])/g, "$1**$2**")
    .replace(/(^|[^\w~])~(?!\s)([^~\n]+?)(?<!\s)~(?![\w~])/g, "$1~~$2~~")

/** Slack mrkdwn as markdown. */
export const slackToMarkdown = (text: string): string =>
  quiet(text.split(CODE).map((part, index) => unescape(index % 2 === 1 ? part : prose(part))).join(""))

/** Slack plain text (titles, names, footers): only its entities restored. */
export const slackPlain = (text: string): string => quiet(unescape(text))
