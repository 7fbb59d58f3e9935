/**
 * Share links this Worker isolate has seen answered "gone" (revoked,
 * expired, or of a deleted room). None comes back: a link's id is minted
 * once and its token only ever signed by the server, so once the overseer
 * says a link is gone, every later request with it can be answered 404
 * here, without a call to the workspace's overseer. A flood of revoked links
 * then costs a signature check, not the workspace's thread. Bounded: past
 * the bound the oldest entry goes, and a request with it asks the overseer
 * once more. Pure.
 */

const MAX_GONE_SHARES = 10_000;

export class GoneShares {
  readonly #ids = new Set<string>();

  constructor(private readonly max = MAX_GONE_SHARES) {}

  has(shareId: string): boolean {
    return this.#ids.has(shareId);
  }

  add(shareId: string) {
    this.#ids.delete(shareId);
    this.#ids.add(shareId);
    if (this.#ids.size > this.max) this.#ids.delete(this.#ids.values().next().value as string);
  }
}
