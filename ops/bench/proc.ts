// What Linux's /proc says of a process and of the machine: CPU time and resident memory
// hold still when the machine is busy, unlike wall-clock time.
import { readFileSync } from "node:fs"

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS = 100

/** utime and stime of a process, in ms. */
export const cpuTimes = (pid: number): { user: number; system: number } => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return { user: (Number(fields[11]) * 1000) / TICKS, system: (Number(fields[12]) * 1000) / TICKS }
}

/** utime + stime of a process, in ms. */
export const cpuMs = (pid: number): number => {
  const { user, system } = cpuTimes(pid)
  return user + system
}

export const rssBytes = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024
}

/** The 1-minute load average. */
export const loadAverage = (): number => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0])
