/**
 * What a share link's viewer sees of the people in a room: their display
 * names, never their identity ids (an id names a person across every
 * workspace and room). Each id becomes an alias, opaque and stable within
 * one share (the same person has the same alias on every page of it) and
 * different between shares, so two links cannot be joined on it.
 */

import type { MessageAuthor } from "@/shared/identity";
import type { MessagePage } from "@/shared/protocol";

const ALIAS_PREFIX = "viewer-alias:";

/** An author as a viewer of `shareId` sees them. */
async function aliased(author: MessageAuthor, shareId: string): Promise<MessageAuthor> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${shareId}\n${author.id}`));
  const hex = [...new Uint8Array(digest).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { id: `${ALIAS_PREFIX}${hex}`, name: author.name };
}

/** Only objects with a string id (older messages may hold a bare name: nothing to hide). */
function isAuthor(value: unknown): value is MessageAuthor {
  return typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string";
}

/** A page of history as a share link's viewer gets it: authors, stoppers and reactors under aliases. */
export async function pageForViewer(page: MessagePage, shareId: string): Promise<MessagePage> {
  const alias = (author: MessageAuthor) => aliased(author, shareId);
  const messages = await Promise.all(
    page.messages.map(async (message) => {
      const metadata = message.metadata;
      if (!metadata) return message;
      const author = isAuthor(metadata.author) ? { author: await alias(metadata.author) } : {};
      const stoppedBy = isAuthor(metadata.stoppedBy) ? { stoppedBy: await alias(metadata.stoppedBy) } : {};
      return { ...message, metadata: { ...metadata, ...author, ...stoppedBy } };
    })
  );
  if (!page.reactions) return { ...page, messages };
  const reactions = Object.fromEntries(
    await Promise.all(
      Object.entries(page.reactions).map(
        async ([messageId, list]) =>
          [
            messageId,
            await Promise.all(list.map(async (r) => ({ ...r, by: await Promise.all(r.by.map(alias)) })))
          ] as const
      )
    )
  );
  return { ...page, messages, reactions };
}
