/** Linux /proc readers: the processes of a server's group, their RSS and listening ports. */
import { readdirSync, readFileSync } from "node:fs";

export interface ProcInfo {
  pid: number;
  comm: string;
  rssKiB: number;
}

function stat(pid: number): { comm: string; pgrp: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may contain spaces.
    const open = text.indexOf("(");
    const close = text.lastIndexOf(")");
    const rest = text.slice(close + 2).split(" ");
    return { comm: text.slice(open + 1, close), pgrp: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

function rssKiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Every live process in process group `pgid` (a detached child leads its own group). */
export function processGroup(pgid: number): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const s = stat(pid);
    if (!s || s.pgrp !== pgid) continue;
    const rss = rssKiB(pid);
    if (rss === 0) continue; // zombie
    out.push({ pid, comm: s.comm, rssKiB: rss });
  }
  return out;
}

export function workerdProcesses(pgid: number): ProcInfo[] {
  return processGroup(pgid).filter((p) => p.comm === "workerd");
}

/** Sum of VmRSS (KiB) of the workerd processes of a server. */
export function workerdRssKiB(pgid: number): number {
  return workerdProcesses(pgid).reduce((sum, p) => sum + p.rssKiB, 0);
}

/** CPU time (user + system, ms) a process has used so far. */
function cpuMs(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 Hz on Linux).
    return (Number(rest[11]) + Number(rest[12])) * 10;
  } catch {
    return 0;
  }
}

/** CPU ms used so far by a server's workerd processes and by the rest of its group (Vite/Node). */
export function groupCpuMs(pgid: number): { workerd: number; other: number } {
  let workerd = 0;
  let other = 0;
  for (const p of processGroup(pgid)) {
    if (p.comm === "workerd") workerd += cpuMs(p.pid);
    else other += cpuMs(p.pid);
  }
  return { workerd, other };
}
