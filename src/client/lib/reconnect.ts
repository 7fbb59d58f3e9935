/**
 * How the app's sockets come back after the server or the network goes
 * away. The socket library's defaults wait 3 s before the first retry and
 * up to 10 s between retries (plus a 4 s connect timeout): with a few
 * misses behind it, a client could sit out ~30 s after the server was back.
 * We retry sooner and cap lower, and try at once when the browser says the
 * network is back or the tab comes to the front ("Reconnect now" too).
 */
export const RECONNECT_OPTIONS = {
  minReconnectionDelay: 500,
  reconnectionDelayGrowFactor: 1.5,
  maxReconnectionDelay: 4_000
} as const;

/** Calls `reconnect` when the network comes back or the page becomes visible again, while `down`. */
export function reconnectOnReturn(down: () => boolean, reconnect: () => void): () => void {
  const retry = () => {
    if (down() && document.visibilityState === "visible") reconnect();
  };
  window.addEventListener("online", retry);
  document.addEventListener("visibilitychange", retry);
  return () => {
    window.removeEventListener("online", retry);
    document.removeEventListener("visibilitychange", retry);
  };
}
