/**
 * Moved to src/server/errors.ts (the agents use it too, and must not depend
 * on the HTTP layer). Kept only so branches written against the old path
 * still build; import from "../errors" instead.
 */
export * from "../errors";
