import { useEffect, useRef, useState } from "preact/hooks"
import type { Result } from "./api.ts"

/**
 * The latest answer of `load`, fetched again whenever `tick` changes; a tick
 * that comes while a request is still out is skipped rather than queued.
 */
export const usePolled = <A>(tick: number, load: () => Promise<Result<A>>): Result<A> | undefined => {
  const [result, setResult] = useState<Result<A> | undefined>(undefined)
  const inFlight = useRef(false)
  const mounted = useRef(true)
  const loader = useRef(load)
  loader.current = load
  useEffect(() => () => {
    mounted.current = false
  }, [])
  useEffect(() => {
    if (inFlight.current) return
    inFlight.current = true
    void loader.current().then((next) => {
      inFlight.current = false
      if (mounted.current) setResult(next)
    })
  }, [tick])
  return result
}
