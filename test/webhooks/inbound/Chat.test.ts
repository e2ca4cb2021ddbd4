import { describe, expect, it } from "@effect/vitest"
import { chatColour, chatDraft, ChatWebhookRequest } from "../../../src/webhooks/inbound/Chat.ts"
import { slackToMarkdown } from "../../../src/webhooks/inbound/SlackText.ts"
import { expectPostable, fixture, refuses } from "./Fixtures.ts"

describe("chat-tool messages", () => {
  it("text, username and icon; each attachment an embed with its fields, author, images, footer and time", () => {
    const draft = chatDraft(fixture("chat-attachments.json", ChatWebhookRequest))
    expectPostable(draft)
    expect(draft).toEqual({
      content: "Deploy of [harbor #812](https://ci.example.com/harbor/builds/812) finished & **green**: @\u200bhere",
      username: "Deploy Bot",
      avatar_url: "https://ci.example.com/icon.png",
      embeds: [
        {
          title: "harbor 2.1.0 <production>",
          url: "https://ci.example.com/harbor/deploys/2.1.0",
          description: "Production rollout\nChanges: [v2.0.0...v2.1.0](https://github.com/octo-org/harbor/compare/v2.0.0...v2.1.0)\n" +
            "Run `make rollback` to undo",
          color: 0x2eb886,
          author: {
            name: "Mona Lisa",
            url: "https://ci.example.com/users/mona",
            icon_url: "https://ci.example.com/users/mona.png"
          },
          fields: [
            { name: "Environment", value: "production", inline: true },
            { name: "Duration", value: "3m 12s", inline: true },
            { name: "Notes", value: "Migrations ran ~~cleanly~~", inline: false }
          ],
          image: { url: "https://ci.example.com/graphs/812.png" },
          thumbnail: { url: "https://ci.example.com/thumbs/812.png" },
          footer: { text: "CI", icon_url: "https://ci.example.com/favicon.png" },
          timestamp: "2024-05-22T10:00:00.000Z"
        },
        { description: "2 warnings in the build log", color: 0xffa500 },
        { description: "only a fallback", color: 0xdaa038 }
      ]
    })
  })

  it("Slack's text syntax as markdown, code left alone", () => {
    expect(slackToMarkdown("<https://a.example/x?y=1&amp;z=2>")).toBe("https://a.example/x?y=1&z=2")
    expect(slackToMarkdown("see <https://a.example|the [docs]>")).toBe("see [the \\[docs\\]](https://a.example)")
    expect(slackToMarkdown("<mailto:ops@example.com|ops> and <mailto:a@example.com>")).toBe("ops and a@example.com")
    expect(slackToMarkdown("hi <@U024BE7LH> and <@U1|mona> in <#C024BE7LR|general>")).toBe("hi @U024BE7LH and @mona in #general")
    expect(slackToMarkdown("<!channel> <!subteam^SAZ94GDB8|@ops> <!date^1392734382^{date}|Feb 18>")).toBe("@\u200bchannel @ops Feb 18")
    expect(slackToMarkdown("*bold* _it_ ~gone~ 2*3*4")).toBe("**bold** _it_ ~~gone~~ 2*3*4")
    expect(slackToMarkdown("`*not bold* &lt;x&gt;` and ```<https://a.example|a>```")).toBe("`*not bold* <x>` and ```<https://a.example|a>```")
    expect(slackToMarkdown("a &lt;b&gt; &amp;lt;")).toBe("a <b> &lt;")
    expect(slackToMarkdown("hello @everyone")).toBe("hello @\u200beveryone")
  })

  it("colours: the named ones, hex with or without #, short hex; anything else none", () => {
    expect([chatColour("good"), chatColour("warning"), chatColour("danger")]).toEqual([0x2eb886, 0xdaa038, 0xa30200])
    expect([chatColour("#36a64f"), chatColour("36A64F"), chatColour("#fa0")]).toEqual([0x36a64f, 0x36a64f, 0xffaa00])
    expect([chatColour("blue"), chatColour("#12345"), chatColour(""), chatColour(undefined)]).toEqual([undefined, undefined, undefined, undefined])
  })

  it("links and images that are not http(s) are dropped; a string ts is read; an empty attachment is no embed", () => {
    const draft = chatDraft({
      icon_url: "javascript:alert(1)",
      attachments: [
        { title: "t", title_link: "ftp://files.example/x", image_url: "not a url", ts: "1716372000.123" },
        { color: "good" }
      ]
    })
    expect(draft).toEqual({ embeds: [{ title: "t", timestamp: "2024-05-22T10:00:00.123Z" }] })
  })

  it("many large attachments are cut to the message's limits", () => {
    const attachment = { title: "T".repeat(300), text: "x".repeat(5000), fields: Array(30).fill({ title: "f", value: "v".repeat(2000) }) }
    const draft = chatDraft({ text: "y".repeat(2500), attachments: Array(12).fill(attachment) })
    expectPostable(draft)
    expect(draft.content).toHaveLength(2000)
    expect(draft.embeds).toHaveLength(10)
    expect(draft.embeds?.[0]?.title).toHaveLength(256)
  })

  it("an empty message stays empty (the guild refuses it as any empty message)", () => {
    expect(chatDraft({})).toEqual({})
  })

  it("the schema refuses attachments of the wrong shape", () => {
    expect(refuses(ChatWebhookRequest, { attachments: "none" })).toBe(true)
    expect(refuses(ChatWebhookRequest, { text: 5 })).toBe(true)
    expect(refuses(ChatWebhookRequest, { attachments: [{ fields: [{ title: {} }] }] })).toBe(true)
  })
})
