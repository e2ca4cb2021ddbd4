/**
 * Answers of a slow outside source (a DNS server, another host) kept for a
 * while, at most `capacity` of them, the oldest dropped first. A miss is kept
 * a shorter while than an answer: it may be the source's passing trouble.
 */
export class RecentAnswers<A> {
  private readonly entries = new Map<string, { readonly answer: A | undefined; readonly until: number }>()
  private readonly capacity: number
  private readonly answerMillis: number
  private readonly missMillis: number

  constructor(capacity: number, answerMillis: number, missMillis: number) {
    this.capacity = capacity
    this.answerMillis = answerMillis
    this.missMillis = missMillis
  }

  /** The kept answer (`undefined` for a kept miss), or `"unknown"` when nothing is kept. */
  get(key: string, now = Date.now()): A | undefined | "unknown" {
    const kept = this.entries.get(key)
    return kept !== undefined && kept.until > now ? kept.answer : "unknown"
  }

  /** Keeps `answer` (`undefined`: a miss) and answers it. */
  keep(key: string, answer: A | undefined, now = Date.now()): A | undefined {
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next()
      if (oldest.done !== true) this.entries.delete(oldest.value)
    }
    this.entries.set(key, { answer, until: now + (answer === undefined ? this.missMillis : this.answerMillis) })
    return answer
  }
}
