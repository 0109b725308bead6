import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { BIN } from './cli-harness.js'

/** The pids of the processes (this one aside) whose command line holds `needle`, read from /proc. */
export function processesMentioning(needle: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(Number(entry))
    } catch {
      // The process ended meanwhile.
    }
  }
  return pids
}

/** The pid of the `tooltx` process (not the shell around it) working in `cwd`; throws when there is none. */
export function tooltxPid(cwd: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      if (argv[1] === BIN && readlinkSync(`/proc/${entry}/cwd`) === cwd) return Number(entry)
    } catch {
      // The process ended meanwhile.
    }
  }
  throw new Error(`no tooltx process works in ${cwd}`)
}
