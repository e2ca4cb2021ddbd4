import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Mailer } from "../../src/mail/Mailer.ts"
import { TestMail } from "../support/Mail.ts"

layer(TestMail.layer, { excludeTestServices: true })("Mailer over SMTP", (it) => {
  it.effect("delivers to the SMTP server of SMTP_URL", () =>
    Effect.gen(function*() {
      const smtp = yield* TestMail
      const mailer = yield* Effect.provide(Mailer, Mailer.layerSmtp(smtp.url, "Guildhall <hi@guildhall.test>"))
      yield* mailer.send({ to: "Ann@Example.com", subject: "Hello", text: `a long line ${"x".repeat(120)} token=abc_DEF-123` })
      const mail = yield* smtp.next("ann@example.com", /Hello/)
      assert.strictEqual(mail.subject, "Hello")
      assert.include(mail.text, `${"x".repeat(120)} token=abc_DEF-123`)
    }))
})

describe("Mailer outbox", () => {
  const outbox = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "guildhall-")), "outbox")
  layer(Mailer.layerOutbox(outbox, "from@test"), { excludeTestServices: true })("files", (it) => {
    it.effect("writes each message to a file an operator can read", () =>
      Effect.gen(function*() {
        const mailer = yield* Mailer
        yield* mailer.send({ to: "bob@example.com", subject: "Verify", text: "token=xyz" })
        // Mails to one address in the same millisecond each get a file of their own.
        yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) =>
          mailer.send({ to: "bob@example.com", subject: `Again ${i}`, text: "token=abc" }), { concurrency: "unbounded" })
        const files = Fs.readdirSync(outbox).map((name) => Fs.readFileSync(Path.join(outbox, name), "utf8")).sort()
        assert.strictEqual(files.length, 11)
        assert.include(files.join("\n"), "Subject: Verify\n\ntoken=xyz")
        assert.include(files.join("\n"), "To: bob@example.com")
      }))
  })
})
