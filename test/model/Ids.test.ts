import { assert, describe, it } from "@effect/vitest"
import { Exit, Schema } from "effect"
import { ChannelId, GuildId } from "../../src/model/Ids.ts"

const guildOnly = (guildId: GuildId): string => guildId

describe("branded ids", () => {
  it("a channel id does not compile where a guild id belongs", () => {
    const channelId = ChannelId.make("1")
    // @ts-expect-error a ChannelId is not a GuildId: if this compiles, the brands stopped working
    const swapped = guildOnly(channelId)
    assert.strictEqual(swapped, "1")
    assert.strictEqual(guildOnly(GuildId.make("2")), "2")
  })

  it("decoding still refuses what is not a snowflake, with the snowflake's code", () => {
    assert.strictEqual(Schema.decodeUnknownSync(GuildId)("123"), "123")
    const exit = Schema.decodeUnknownExit(GuildId)("12a")
    assert.isTrue(Exit.isFailure(exit))
    assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "INVALID_SNOWFLAKE_FORMAT")
  })
})
