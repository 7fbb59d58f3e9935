/**
 * Which addresses a room may send its MCP requests to. The room connects
 * from inside the Worker's network, so a URL naming a private, loopback or
 * link-local address (the cloud metadata endpoint, a service on the host)
 * would let anyone who can add a server reach what only the Worker should.
 *
 * The agents SDK blocks private ranges too (agents/mcp/client), but allows
 * loopback and plain `http:` for local development; we need the opposite
 * default (https only, loopback refused) with one switch for development
 * and tests (`MCP_ALLOW_PRIVATE=true`), and the same check on every request
 * and every redirect hop (mcp/mcp-fetch.ts), not only on the URL
 * someone typed.
 *
 * A name is checked as written: the Worker cannot resolve DNS before it
 * connects, so a public name pointing at a private address is not caught
 * here (Cloudflare's egress does not reach private networks of its own).
 */
import { AppError } from "@/server/app-error";

export interface McpUrlPolicy {
  /** `MCP_ALLOW_PRIVATE=true`: `http:` and private, loopback and link-local addresses are allowed. */
  allowPrivate: boolean;
}

/** Names that always mean this machine or its private network. */
const PRIVATE_NAMES = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa)$/i;

function ipv4(host: string): number[] | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? bytes : null;
}

function isPrivateIpv4([a, b]: number[]): boolean {
  return (
    a === 0 || // "this network"
    a === 10 ||
    a === 127 || // loopback
    (a === 100 && b !== undefined && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b !== undefined && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) || // IETF protocol assignments
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a !== undefined && a >= 224) // multicast, reserved, broadcast
  );
}

/** The 16-bit groups of an IPv6 literal (already normalized by the URL parser), or null. */
function ipv6Groups(host: string): number[] | null {
  if (!host.startsWith("[") || !host.endsWith("]")) return null;
  const text = host.slice(1, -1).toLowerCase();
  const [head = "", tail] = text.split("::");
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? [] : new Array(8 - left.length - right.length).fill(0);
  const groups = [...left, ...fill, ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function isPrivateIpv6(g: number[]): boolean {
  const first = g[0] ?? 0;
  if (g.slice(0, 7).every((x) => x === 0) && (g[7] === 0 || g[7] === 1)) return true; // :: and ::1
  if ((first & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((first & 0xff00) === 0xff00) return true; // multicast
  // IPv4-mapped (::ffff:a.b.c.d): the IPv4 rules apply.
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    const hi = g[6] ?? 0;
    const lo = g[7] ?? 0;
    return isPrivateIpv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  }
  return false;
}

/** Whether a URL's host is private, loopback or link-local (as written; see the header). */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "" || PRIVATE_NAMES.test(host)) return true;
  const v4 = ipv4(host);
  if (v4) return isPrivateIpv4(v4);
  const v6 = ipv6Groups(host);
  if (v6) return isPrivateIpv6(v6);
  // A bare number or other form the URL parser did not turn into dotted IPv4.
  return /^[\d.]+$/.test(host) || /^0x/i.test(host);
}

function refuse(message: string): AppError {
  return new AppError("bad_request:mcp_url", 400, message);
}

/**
 * The URL a room may connect to, parsed; throws `bad_request:mcp_url`
 * saying why not. Credentials in the URL are refused: they belong in
 * headers, which stay on the server.
 */
export function checkMcpUrl(raw: string, policy: McpUrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse("url is not a valid absolute URL.");
  }
  if (url.protocol !== "https:" && !(policy.allowPrivate && url.protocol === "http:")) {
    throw refuse("An MCP server's url must start with https:.");
  }
  if (url.username || url.password) {
    throw refuse("Put credentials in headers, not in the url: headers are never shown or exported.");
  }
  if (!policy.allowPrivate && isPrivateHost(url.hostname)) {
    throw refuse(
      `${url.hostname} is a private, loopback or link-local address; set MCP_ALLOW_PRIVATE=true to allow it (development only).`
    );
  }
  return url;
}

/** A server's address as people see it: no query or fragment (they may carry keys). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "";
  }
}
