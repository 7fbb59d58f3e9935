/**
 * What a caller holds for an object it reaches over RPC: every method of
 * the contract, answering a promise. The contracts in this folder say what
 * an agent answers; `Remote<Contract>` is how a caller sees it.
 *
 * Why not workers-types' `DurableObjectStub<Class>`: it maps every return
 * type recursively (for stubs inside results), and the AI SDK's UIMessage is
 * too deep for that mapping; and typing a stub by the class would make
 * every caller import the class, which imports everything below it.
 */
export type Remote<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};
