import { setFlagsFromString } from "node:v8"

/*
 * Imported first by every process's entry point (src/main.ts, shards/main.ts),
 * before anything is allocated, so it holds however the process was started
 * (npm scripts, the container, a test); V8 does not take this flag from
 * NODE_OPTIONS.
 *
 * V8's allocation-site pretenuring is turned off. It watches which allocation
 * sites' objects outlive a minor GC and, past a threshold, allocates that
 * site's objects straight in the old generation. Booting a process builds its
 * long-lived layers through the same generic sites (Effect's runtime, contexts,
 * schemas) that every request uses, so those sites were judged long-lived and
 * every request's objects went to the old generation: each object they point
 * to then outlived its minor GC too. A fifth of all request allocation was
 * promoted and freed only by full-heap collections; minor GCs took about 10 ms
 * instead of 0.5, and a tenth of a busy process's time. With it off, a health
 * request costs about a quarter less CPU (README, "Node flags").
 */
setFlagsFromString("--no-allocation-site-pretenuring")
