import { createHash } from "node:crypto"
import { Effect, Layer, Schema } from "effect"
import { ClusterError, RunnerStorage } from "effect/cluster"
import type { Redis } from "ioredis"
import { RedisClient } from "../src/platform/Redis.ts"

export interface RedisRunnerStorageOptions {
  /** Every key starts with it, e.g. `guildhall:cluster:`. */
  readonly prefix: string
  /** Lease length of shard locks and runner heartbeats; match `ShardingConfig.shardLockExpiration`. */
  readonly lockExpirationMillis: number
}

// Runner scripts get KEYS = heartbeats (zset address -> last heartbeat ms),
// runners, health, machine ids (hashes keyed by address). Time comes from the
// Redis server, so runners with skewed clocks still agree on who is alive.
const prelude = `
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function forget(address)
  redis.call('ZREM', KEYS[1], address)
  for i = 2, 4 do redis.call('HDEL', KEYS[i], address) end
end
-- Dropping runners whose heartbeat lapsed frees their machine ids. One that
-- comes back is invisible (heartbeats use ZADD XX), so Sharding registers it
-- again and it gets a fresh id instead of sharing one.
local function purge(ttl)
  for _, address in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now() - tonumber(ttl))) do
    forget(address)
  end
end
`

const registerLua = `${prelude}
local address = ARGV[1]
purge(ARGV[4])
local id = redis.call('HGET', KEYS[4], address)
if not id then
  local taken = {}
  for _, other in ipairs(redis.call('HVALS', KEYS[4])) do taken[other] = true end
  -- Snowflake ids keep only machineId mod 1024, so live runners must differ there.
  for candidate = 0, 1023 do
    if not taken[tostring(candidate)] then id = tostring(candidate) break end
  end
  if not id then return redis.error_reply('all 1024 machine ids are held by live runners') end
end
redis.call('ZADD', KEYS[1], now(), address)
redis.call('HSET', KEYS[2], address, ARGV[2])
redis.call('HSET', KEYS[3], address, ARGV[3])
redis.call('HSET', KEYS[4], address, id)
return tonumber(id)
`

const getRunnersLua = `${prelude}
local runners = {}
for _, address in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now() - tonumber(ARGV[1])), '+inf')) do
  local runner = redis.call('HGET', KEYS[2], address)
  if runner then runners[#runners + 1] = { runner, redis.call('HGET', KEYS[3], address) or '1' } end
end
return runners
`

const unregisterLua = `${prelude}
purge(ARGV[2])
forget(ARGV[1])
`

// Health checks run from other runners too; they must not recreate a runner
// that was unregistered or purged.
const setRunnerHealthLua = `
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then redis.call('HSET', KEYS[3], ARGV[1], ARGV[2]) end
`

// KEYS = runner keys, held set of the address, then one lease key per shard;
// ARGV = address, ttl, mode, then the shard ids in the same order.
// A lease is a key holding its owner's address with a PX expiry, so a dead
// runner's shards free themselves. The held set only indexes them for
// releaseAll and is checked against the lease before any delete.
const leaseLua = `${prelude}
local address, ttl, refreshing = ARGV[1], ARGV[2], ARGV[3] == 'refresh'
if refreshing then redis.call('ZADD', KEYS[1], 'XX', now(), address) end
local held = {}
for i = 6, #KEYS do
  local shard = ARGV[i - 2]
  local owner = redis.call('GET', KEYS[i])
  if owner == address or (not owner and not refreshing) then
    redis.call('SET', KEYS[i], address, 'PX', ttl)
    redis.call('SADD', KEYS[5], shard)
    held[#held + 1] = shard
  else
    redis.call('SREM', KEYS[5], shard)
  end
end
-- Outlives every lease it lists, and vanishes with them if the runner dies.
redis.call('PEXPIRE', KEYS[5], ttl)
return held
`

const releaseLua = `
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
redis.call('SREM', KEYS[1], ARGV[2])
`

// Lease keys come from the held set, so they cannot be declared up front; fine
// on a single Redis, not on Redis Cluster.
const releaseAllLua = `
for _, shard in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local key = ARGV[2] .. shard
  if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key) end
end
redis.call('DEL', KEYS[1])
`

const script = <S extends Schema.Decoder<unknown>>(redis: Redis, lua: string, reply: S) => {
  const sha = createHash("sha1").update(lua).digest("hex")
  return (keys: ReadonlyArray<string>, args: ReadonlyArray<string | number>) =>
    Effect.tryPromise(() =>
      redis.evalsha(sha, keys.length, ...keys, ...args).catch((error: unknown) =>
        // A restarted or failed-over Redis has an empty script cache.
        String(error).includes("NOSCRIPT") ? redis.eval(lua, keys.length, ...keys, ...args) : Promise.reject(error)
      )
    ).pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(reply)),
      ClusterError.PersistenceError.refail
    )
}

export const makeRedisRunnerStorage = (
  redis: Redis,
  options: RedisRunnerStorageOptions
): Effect.Effect<RunnerStorage.RunnerStorage["Service"]> =>
  Effect.sync(() => {
    const key = (name: string) => `${options.prefix}${name}`
    const runnerKeys = [key("heartbeats"), key("runners"), key("health"), key("machine-ids")]
    const shardKey = key("shard:")
    const heldKey = (address: string) => key(`held:${address}`)
    const ttl = Math.max(1, Math.ceil(options.lockExpirationMillis))

    const register = script(redis, registerLua, Schema.Int)
    const getRunners = script(redis, getRunnersLua, Schema.Array(Schema.Tuple([Schema.String, Schema.String])))
    const unregister = script(redis, unregisterLua, Schema.Unknown)
    const setRunnerHealth = script(redis, setRunnerHealthLua, Schema.Unknown)
    const lease = script(redis, leaseLua, Schema.mutable(Schema.Array(Schema.String)))
    const release = script(redis, releaseLua, Schema.Unknown)
    const releaseAll = script(redis, releaseAllLua, Schema.Unknown)

    const leaseFor = (mode: "acquire" | "refresh", address: string, shardIds: ReadonlyArray<string>) =>
      lease(
        [...runnerKeys, heldKey(address), ...shardIds.map((id) => shardKey + id)],
        [address, ttl, mode, ...shardIds]
      )

    return RunnerStorage.makeEncoded({
      register: (address, runner, healthy) => register(runnerKeys, [address, runner, healthy ? "1" : "0", ttl]),
      getRunners: getRunners(runnerKeys, [ttl]).pipe(
        Effect.map((rows) => rows.map(([runner, healthy]) => [runner, healthy === "1"] as const))
      ),
      unregister: (address) => Effect.asVoid(unregister(runnerKeys, [address, ttl])),
      setRunnerHealth: (address, healthy) => Effect.asVoid(setRunnerHealth(runnerKeys, [address, healthy ? "1" : "0"])),
      acquire: (address, shardIds) => leaseFor("acquire", address, shardIds),
      refresh: (address, shardIds) => leaseFor("refresh", address, shardIds),
      release: (address, shardId) => Effect.asVoid(release([heldKey(address), shardKey + shardId], [address, shardId])),
      releaseAll: (address) => Effect.asVoid(releaseAll([heldKey(address)], [address, shardKey]))
    })
  })

export const RedisRunnerStorage = {
  layer: (options: RedisRunnerStorageOptions): Layer.Layer<RunnerStorage.RunnerStorage, never, RedisClient> =>
    Layer.effect(RunnerStorage.RunnerStorage)(
      RedisClient.use((redis) => makeRedisRunnerStorage(redis, options))
    )
} as const
