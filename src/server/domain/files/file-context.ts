/**
 * Retrieved passages as the model reads them and as the answer cites them.
 * The model gets one context section (domain/memory/context-assembly.ts
 * fits it in its own token budget and records what went in): each passage
 * numbered, with its file and place. The answer then carries a
 * `source-document` part for each number it cites, which the UI shows as a
 * citation that opens the file at that page or line. Pure.
 */
import type { UIMessage } from "ai";
import type { ContextSection } from "@/server/domain/memory/context-assembly";
import { formatBytes } from "./file-limits";

export interface RetrievedPassage {
  /** The passage's row in the room's index. */
  passageId: string;
  fileId: string;
  name: string;
  contentType: string;
  page?: number;
  lineFrom?: number;
  lineTo?: number;
  text: string;
}

export const PASSAGES_HEADING =
  "From the room's files. Use them when they answer the question, and cite each passage you use by its number, like [1]";

/** Where in its file a passage is, as people read it: "page 2", "lines 40–61". */
function placeOf(p: Pick<RetrievedPassage, "page" | "lineFrom" | "lineTo">): string | null {
  if (p.page !== undefined) return `page ${p.page}`;
  if (p.lineFrom !== undefined && p.lineTo !== undefined) {
    return p.lineFrom === p.lineTo ? `line ${p.lineFrom}` : `lines ${p.lineFrom}–${p.lineTo}`;
  }
  return null;
}

/** A retrieved passage as the `search_files` tool answers it. */
export function fileSearchHit(p: RetrievedPassage): { source: string; fileId: string; text: string } {
  const place = placeOf(p);
  return { source: `${p.name}${place ? `, ${place}` : ""}`, fileId: p.fileId, text: p.text };
}

/** The context section of a turn's passages, numbered from 1 in rank order. */
export function passagesSection(passages: readonly RetrievedPassage[], budget: number): ContextSection {
  return {
    kind: "passages",
    heading: PASSAGES_HEADING,
    budget,
    items: passages.map((p, i) => {
      const place = placeOf(p);
      return {
        ref: { fileId: p.fileId, passageId: p.passageId, name: p.name },
        text: `[${i + 1}] ${p.name}${place ? `, ${place}` : ""}:\n${p.text}`
      };
    })
  };
}

/** What the UI needs to open a citation (the answer's `source-document` part, `providerMetadata.rooms`). */
interface SourceLocation {
  fileId: string;
  page?: number;
  lineFrom?: number;
  lineTo?: number;
  /** The number the answer cites it by. */
  n: number;
}

interface SourceDocumentChunk {
  type: "source-document";
  sourceId: string;
  mediaType: string;
  title: string;
  filename: string;
  providerMetadata: { rooms: { [K in keyof SourceLocation]: SourceLocation[K] } };
}

function sourceOf(p: RetrievedPassage, n: number): SourceDocumentChunk {
  const place = placeOf(p);
  const where =
    p.page !== undefined ? `page=${p.page}` : p.lineFrom !== undefined ? `lines=${p.lineFrom}-${p.lineTo}` : "";
  const rooms: SourceLocation = {
    fileId: p.fileId,
    n,
    ...(p.page !== undefined ? { page: p.page } : {}),
    ...(p.lineFrom !== undefined && p.lineTo !== undefined ? { lineFrom: p.lineFrom, lineTo: p.lineTo } : {})
  };
  return {
    type: "source-document",
    sourceId: `${p.fileId}#${where || n}`,
    mediaType: p.contentType.split(";")[0]?.trim() || "application/octet-stream",
    title: place ? `${p.name}, ${place}` : p.name,
    filename: p.name,
    providerMetadata: { rooms }
  };
}

/** The sources an answer cites (`[n]`, each once, in order of first citation). */
export function citedSources(answer: string, passages: readonly RetrievedPassage[]): SourceDocumentChunk[] {
  const cited: number[] = [];
  for (const match of answer.matchAll(/\[(\d{1,3})\]/g)) {
    const n = Number(match[1]);
    if (n >= 1 && n <= passages.length && !cited.includes(n)) cited.push(n);
  }
  return cited.map((n) => sourceOf(passages[n - 1] as RetrievedPassage, n));
}

/**
 * A transform of an answer's UI message stream that adds a
 * `source-document` chunk for each passage the answer cited, just before
 * the stream's `finish` (the answer's text is complete by then).
 */
export function citeSources<T extends { type: string; delta?: string }>(
  passages: readonly RetrievedPassage[]
): TransformStream<T, T> {
  let text = "";
  return new TransformStream<T, T>({
    transform(chunk, controller) {
      if (chunk.type === "text-delta" && typeof chunk.delta === "string") text += chunk.delta;
      if (chunk.type === "finish") {
        for (const source of citedSources(text, passages)) controller.enqueue(source as unknown as T);
      }
      controller.enqueue(chunk);
    }
  });
}

/** What the turn knows of an attached file. */
interface AttachedFile {
  id: string;
  name: string;
  contentType: string;
  kind: string;
  size: number;
  pages: number | null;
  state: string;
  /** The first line of its text, when indexed. */
  firstLine: string | null;
}

export interface AttachmentSource {
  /** The room's file behind a file part's url, or null (deleted, or another room's). */
  describe(url: string): AttachedFile | null;
  /** An image's bytes for the model, or null when they cannot be had. */
  imageBytes(fileId: string): Promise<Uint8Array | null>;
  /** Whether the room's model reads images (a room setting, with a default per provider). */
  acceptsImages: boolean;
}

/** Images sent to the model per turn at most (the newest), and the largest one sent. */
const MAX_IMAGES_PER_TURN = 4;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const KIND_LABEL: Record<string, string> = { pdf: "PDF", image: "image", text: "text" };

/** A file part as the model reads it when it does not get the file itself: its name, size, pages, first line. */
function describeAttachment(file: AttachedFile, why?: string): string {
  const facts = [KIND_LABEL[file.kind] ?? file.kind, formatBytes(file.size)];
  if (file.pages !== null && file.kind === "pdf") facts.push(`${file.pages} ${file.pages === 1 ? "page" : "pages"}`);
  let note = `[Attached: ${file.name} (${facts.join(", ")})`;
  if (file.firstLine) note += `, which begins: "${file.firstLine.slice(0, 160)}"`;
  if (file.state === "indexing") note += "; still being read";
  if (why) note += `; ${why}`;
  return `${note}]`;
}

/** The file ids of a message's file parts (the room's routes). */
export function attachedFileIds(message: UIMessage | undefined, idOf: (url: string) => string | null): string[] {
  if (!message) return [];
  return message.parts.flatMap((p) => (p.type === "file" ? (idOf(p.url) ?? []) : []));
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * The messages as the model gets them: a file part never reaches a provider
 * as a url of ours. The newest few images go as image input (their bytes)
 * when the model reads images; every other file part becomes a note naming
 * it (documents are read through their passages instead).
 */
export async function attachmentsForModel(
  messages: readonly UIMessage[],
  source: AttachmentSource
): Promise<UIMessage[]> {
  const images = new Set<string>();
  if (source.acceptsImages) {
    for (let i = messages.length - 1; i >= 0 && images.size < MAX_IMAGES_PER_TURN; i--) {
      for (const part of (messages[i] as UIMessage).parts) {
        if (part.type !== "file" || images.size >= MAX_IMAGES_PER_TURN) continue;
        const file = source.describe(part.url);
        if (file?.kind === "image" && file.size <= MAX_IMAGE_BYTES) images.add(part.url);
      }
    }
  }
  const out: UIMessage[] = [];
  for (const message of messages) {
    if (!message.parts.some((p) => p.type === "file")) {
      out.push(message);
      continue;
    }
    const parts: UIMessage["parts"] = [];
    for (const part of message.parts) {
      if (part.type !== "file") {
        parts.push(part);
        continue;
      }
      const file = source.describe(part.url);
      if (!file) {
        parts.push({ type: "text", text: `[Attached: ${part.filename ?? "a file"}, since deleted]` });
        continue;
      }
      const bytes = images.has(part.url) ? await source.imageBytes(file.id) : null;
      if (bytes) {
        parts.push({
          type: "file",
          mediaType: part.mediaType,
          filename: file.name,
          url: `data:${part.mediaType};base64,${base64(bytes)}`
        });
        continue;
      }
      const why =
        file.kind === "image"
          ? source.acceptsImages
            ? "not sent: only the newest images of a turn, up to 5 MB each, are"
            : "this model does not read images"
          : undefined;
      parts.push({ type: "text", text: describeAttachment(file, why) });
    }
    out.push({ ...message, parts });
  }
  return out;
}
