// This process's own peak resident set size. `process.resourceUsage().maxRSS` (getrusage) is not that on Linux:
// exec carries the forked image's high-water mark into the new process, so a child started by a process of
// 1.8 GiB reports at least 1.8 GiB whatever it used itself. `/proc/self/status`'s `VmHWM` belongs to the address
// space exec created, so it is the process's own; getrusage stays the answer where /proc is absent.
import { readFileSync } from "node:fs";

/** The highest resident set size this process has reached, in bytes (its own, not its parent's). */
export function peakRssBytes(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "latin1"));
    if (match !== null) return Number(match[1]) * 1024;
  } catch {
    // No /proc (not Linux): getrusage below.
  }
  return process.resourceUsage().maxRSS * 1024;
}
