import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { AppConfig } from "../platform/Config.ts"
import { Database } from "../platform/Database.ts"
import { Migrations } from "../platform/Migrations.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { KNOWN_ACLS } from "./Acls.ts"
import { AdminRepo } from "./Repo.ts"

/**
 * `npm run --silent admin -- create-key --name NAME --acls '*'`: makes an
 * operator key and prints only the key, for a deployment's first operator.
 */
const usage = "usage: admin create-key --name NAME --acls ACL[,ACL...] [--expires-in-days N]"

const option = (args: ReadonlyArray<string>, name: string) => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}

const program = Effect.gen(function*() {
  const args = process.argv.slice(2)
  const name = option(args, "--name")
  const acls = option(args, "--acls")?.split(",").map((a) => a.trim()).filter((a) => a.length > 0)
  const days = option(args, "--expires-in-days")
  if (args[0] !== "create-key" || name === undefined || acls === undefined || acls.length === 0) {
    return yield* Effect.fail(usage)
  }
  const unknownAcl = acls.find((acl) => !KNOWN_ACLS.has(acl))
  if (unknownAcl !== undefined) return yield* Effect.fail(`unknown ACL ${unknownAcl}; known: ${[...KNOWN_ACLS].join(", ")}`)
  const expiresInDays = days === undefined ? undefined : Number(days)
  if (expiresInDays !== undefined && !(Number.isInteger(expiresInDays) && expiresInDays > 0)) {
    return yield* Effect.fail("--expires-in-days takes a positive whole number")
  }
  const repo = yield* AdminRepo
  const key = yield* repo.createKey({ name, acls, expiresInDays, createdBy: null })
  yield* Console.log(key.key)
})

program.pipe(
  Effect.provide(AdminRepo.layer.pipe(
    Layer.provide(Snowflakes.layerTool),
    Layer.provide(Layer.provideMerge(Migrations.layer, Database.layer)),
    Layer.provide(AppConfig.layer)
  )),
  Effect.catch((message) => Effect.andThen(Console.error(String(message)), Effect.sync(() => { process.exitCode = 2 }))),
  NodeRuntime.runMain
)
