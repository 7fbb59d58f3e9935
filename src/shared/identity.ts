/**
 * Who someone is, as the server decides it. Shared by the Worker, the agents
 * and the browser. Nothing a client sends is trusted to say who it is: the
 * Worker resolves the identity from a signed session, a Cloudflare Access
 * assertion or the API token, and the server writes it on messages itself.
 */
import { z } from "zod";
import { MAX_AUTHOR_LENGTH } from "./constants";
import { memberNameClash } from "./names";

/**
 * - `user`: signed in with a display name (a signed session cookie);
 * - `access`: verified by Cloudflare Access (name from the email);
 * - `api`: a script holding the access token, or, on a server without one,
 *   anyone who has not signed in. All API callers share one identity.
 */
const IDENTITY_KINDS = ["user", "access", "api"] as const;
export type IdentityKind = (typeof IDENTITY_KINDS)[number];

/** Collapses runs of whitespace; the server and the browser normalise names alike. */
export function normalizeDisplayName(raw: string): string {
  return raw.replace(/\s+/g, " ").trim();
}

export const DisplayName = z
  .string({ error: "name must be a string" })
  .transform(normalizeDisplayName)
  .pipe(
    z
      .string()
      .min(1, "name must not be empty")
      .max(MAX_AUTHOR_LENGTH, `name must be at most ${MAX_AUTHOR_LENGTH} characters`)
      .refine((s) => !/[\p{Cc}\u200b-\u200f\u2028-\u202e\u2066-\u2069]/u.test(s), {
        message: "name must not contain control or direction characters"
      })
      // A person must not pass for the assistant or a persona (shared/names.ts).
      .superRefine((s, ctx) => {
        const clash = memberNameClash(s);
        if (clash) ctx.addIssue({ code: "custom", message: `name ${clash}` });
      })
  );

const MAX_IDENTITY_ID_LENGTH = 128;

export const Identity = z.strictObject({
  id: z.string().min(1).max(MAX_IDENTITY_ID_LENGTH),
  name: z.string().min(1).max(MAX_AUTHOR_LENGTH),
  kind: z.enum(IDENTITY_KINDS)
});
export type Identity = z.infer<typeof Identity>;

/** What the server writes as `metadata.author` on every user message. */
export const MessageAuthor = z.strictObject({
  id: z.string().min(1).max(MAX_IDENTITY_ID_LENGTH),
  name: z.string().min(1).max(MAX_AUTHOR_LENGTH)
});
export type MessageAuthor = z.infer<typeof MessageAuthor>;

export function authorOf(identity: Identity): MessageAuthor {
  return { id: identity.id, name: identity.name };
}

/** Scripts with the token, and everyone not signed in on a server without one. */
export const API_IDENTITY: Identity = Object.freeze({ id: "api", name: "API", kind: "api" });

/**
 * The display name of a stored author. Messages written before identities
 * carry a bare string; anything else unexpected shows as unknown.
 */
export function authorName(author: unknown): string | null {
  if (typeof author === "string") return author || null;
  const parsed = MessageAuthor.safeParse(author);
  return parsed.success ? parsed.data.name : null;
}

/** The author's identity id, or null for legacy and unknown authors (they belong to no one). */
export function authorId(author: unknown): string | null {
  const parsed = MessageAuthor.safeParse(author);
  return parsed.success ? parsed.data.id : null;
}

// ── /api/session ──

export const SignInBody = z.strictObject({
  name: DisplayName,
  token: z.string().min(1, "token must not be empty").max(512).optional()
});
export type SignInBody = z.infer<typeof SignInBody>;

export const RenameBody = z.strictObject({ name: DisplayName });
export type RenameBody = z.infer<typeof RenameBody>;

/** `GET/POST/PATCH /api/session`. */
export interface SessionInfo {
  user: Identity;
}

/** How this server identifies people; sent with a 401 from `GET /api/session`. */
export interface SignInOptions {
  /** Signing in needs the access token. */
  tokenRequired: boolean;
  /** Identity comes from Cloudflare Access; there is nothing to sign in to here. */
  access: boolean;
}
