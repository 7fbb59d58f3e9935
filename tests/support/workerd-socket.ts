/**
 * The address of workerd's own socket under a `vite preview` process.
 *
 * `vite preview` answers every request and relays every WebSocket frame in
 * Node (the Cloudflare plugin hands each one to Miniflare's `dispatchFetch`
 * and couples the sockets): with every preview server reached this way the
 * browser layer took about 45 fewer of its ~640 CPU-s on two cores, and
 * with the shared servers only the integration and browser layers together
 * 17 fewer of 767. Test servers use it unless their file restarts them
 * (TestAppOptions.restartsServer). workerd serves the same Worker, assets included,
 * on a loopback socket of its own: talking to it directly is also closer to
 * production, where no Node process sits between a browser and the Worker.
 *
 * Linux only: it reads /proc for workerd's listening sockets. Anywhere else,
 * or when none answers as the app, the caller keeps Vite's address.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

/** The loopback TCP ports a process listens on (IPv4). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket) inodes.add(socket[1] as string);
    } catch {
      // Closed meanwhile.
    }
  }
  const ports: number[] = [];
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
    // 0A: listening; 0100007F: 127.0.0.1.
    if (state === "0A" && inode && inodes.has(inode) && local?.startsWith("0100007F:")) {
      ports.push(Number.parseInt(local.slice(9), 16));
    }
  }
  return ports;
}

/** workerd's socket that answers as the app (`/api/rooms`: 200, or 401 behind a token), or null. */
export async function workerdEntryUrl(vitePid: number): Promise<string | null> {
  if (process.platform !== "linux") return null;
  try {
    for (const child of childrenOf(vitePid)) {
      if (!readFileSync(`/proc/${child}/cmdline`, "utf8").includes("workerd")) continue;
      for (const port of listeningPorts(child)) {
        const url = `http://127.0.0.1:${port}`;
        const response = await fetch(`${url}/api/rooms`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
        // Only the status is wanted: let the connection go.
        await response?.body?.cancel().catch(() => {});
        if (response && (response.ok || response.status === 401)) return url;
      }
    }
  } catch {
    // No /proc as expected: keep Vite's address.
  }
  return null;
}
