import { HashMap, Option } from "effect"

/**
 * An immutable map whose changes share structure with the map they came from
 * (a hash array mapped trie: Effect's HashMap). The guild state is immutable,
 * so with a plain Map a member update in a guild of 10,000 members copied all
 * 10,000 entries; here it copies one path of the trie. It reads like a
 * ReadonlyMap, so code that only looks things up does not know the difference.
 * Iteration follows the keys' hashes, not insertion: callers that need an
 * order sort.
 */
export class SharedMap<K, V> implements Iterable<[K, V]> {
  private readonly trie: HashMap.HashMap<K, V>

  private constructor(trie: HashMap.HashMap<K, V>) {
    this.trie = trie
  }

  static empty<K, V>(): SharedMap<K, V> {
    return new SharedMap(HashMap.empty<K, V>())
  }

  static from<K, V>(entries: Iterable<readonly [K, V]>): SharedMap<K, V> {
    return new SharedMap(HashMap.fromIterable(entries))
  }

  get size(): number {
    return HashMap.size(this.trie)
  }

  get(key: K): V | undefined {
    return Option.getOrUndefined(HashMap.get(this.trie, key))
  }

  has(key: K): boolean {
    return HashMap.has(this.trie, key)
  }

  /** This map with `key` set to `value`. */
  with(key: K, value: V): SharedMap<K, V> {
    return new SharedMap(HashMap.set(this.trie, key, value))
  }

  /** This map without `key`. */
  without(key: K): SharedMap<K, V> {
    return this.has(key) ? new SharedMap(HashMap.remove(this.trie, key)) : this
  }

  /** This map with every entry of `entries` set (one new map, not one per entry). */
  withAll(entries: Iterable<readonly [K, V]>): SharedMap<K, V> {
    return new SharedMap(HashMap.mutate(this.trie, (draft) => {
      for (const [key, value] of entries) HashMap.set(draft, key, value)
    }))
  }

  keys(): IterableIterator<K> {
    return HashMap.keys(this.trie)
  }

  values(): IterableIterator<V> {
    return HashMap.values(this.trie)
  }

  entries(): IterableIterator<[K, V]> {
    return HashMap.entries(this.trie)
  }

  [Symbol.iterator](): Iterator<[K, V]> {
    return this.trie[Symbol.iterator]()
  }
}
