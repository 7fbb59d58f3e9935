/**
 * The browser starts each send's trace: a W3C `traceparent` whose trace id
 * the room keeps for the answer (its metadata's `traceId`).
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
