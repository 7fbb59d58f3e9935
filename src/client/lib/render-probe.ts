/**
 * A render counter for browser tests: when a test page defines
 * `window.__roomsRenderCounts = {}`, each render of a message row adds one
 * under its id. That is how the e2e suite proves a streamed token re-renders
 * only the streaming message. Without the object (every real page) it costs
 * one property read per row render.
 */
interface ProbeWindow {
  __roomsRenderCounts?: Record<string, number>;
}

export function countRender(id: string): void {
  const counts = (globalThis as ProbeWindow).__roomsRenderCounts;
  if (counts) counts[id] = (counts[id] ?? 0) + 1;
}
