/** Memory and CPU of a console's process tree (`next start` and its children), read from `/proc`. */
import fs from "node:fs";

/** The console's process tree (next start and its children). */
export function tree(pid: number): number[] {
  const out = [pid];
  for (const p of out) {
    try {
      const kids = fs
        .readFileSync(`/proc/${p}/task/${p}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
      out.push(...kids);
    } catch {
      // gone
    }
  }
  return out;
}

export function rssMb(pid: number): number {
  let kb = 0;
  for (const p of tree(pid)) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"));
      kb += Number(m?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

const TICK_MS = 1000 / 100; // USER_HZ

export function cpuMs(pid: number): number {
  let ticks = 0;
  for (const p of tree(pid)) {
    try {
      const f = fs.readFileSync(`/proc/${p}/stat`, "utf8");
      const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
      ticks += Number(rest[11]) + Number(rest[12]); // utime, stime
    } catch {
      // gone
    }
  }
  return ticks * TICK_MS;
}

/**
 * RSS of the console alone: the root process and the descendants Next names `next…`, not the agents
 * it runs (a replica that owns a backend runs `zot` and its other agents as its children).
 */
export function consoleRssMb(pid: number | undefined): number {
  if (!pid) return 0;
  let kb = 0;
  for (const p of tree(pid)) {
    try {
      if (p !== pid && !fs.readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith("next")) continue;
      const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"));
      kb += Number(m?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}
