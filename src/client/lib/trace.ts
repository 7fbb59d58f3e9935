/**
 * The browser names the span each send comes from: a W3C `traceparent` whose
 * span the room makes the parent of the turn's trace (the trace id is the
 * room's own, in the answer's metadata `traceId`).
 */
function randomHex(bytes: number): string {
  for (;;) {
    const hex = Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join(
      ""
    );
    if (!/^0+$/.test(hex)) return hex;
  }
}

export function newTraceparent(): string {
  return `00-${randomHex(16)}-${randomHex(8)}-01`;
}
