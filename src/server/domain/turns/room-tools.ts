/**
 * Tools the room's model can call. Pure: the clock and the history search
 * are injected, so this module has no Cloudflare or storage dependencies.
 */
import { type ToolSet, tool, zodSchema } from "ai";
import { z } from "zod";

export interface HistorySearchHit {
  messageId: string;
  role: string;
  snippet: string;
}

/** A passage of one of the room's files, as `search_files` answers it. */
export interface FileSearchHit {
  /** The file's name, with the page or lines, e.g. "report.pdf, page 2". */
  source: string;
  fileId: string;
  text: string;
}

export interface RoomToolDeps {
  now: () => Date;
  searchHistory: (query: string, limit: number) => Promise<HistorySearchHit[]>;
  /** The room's files' full-text index; without it there is no `search_files` tool. */
  searchFiles?: (query: string, limit: number) => Promise<FileSearchHit[]>;
}

/** Step limit for a room turn (use with `stopWhen: stepCountIs(MAX_TOOL_STEPS)`). */
export const MAX_TOOL_STEPS = 5;

const DEFAULT_TIME_ZONE = "UTC";
const SEARCH_QUERY_MAX_CHARS = 200;
const SEARCH_LIMIT_DEFAULT = 5;
const SEARCH_LIMIT_MAX = 20;

// Tool input schemas are wrapped for the AI SDK once, here: a bare zod schema
// is wrapped again on every call, and its JSON schema (for the provider's
// request) recomputed with it, on every turn (~0.7 ms of CPU). The wrapper
// computes it once and validates with the same zod schema.
const currentTimeInputSchema = zodSchema(
  z.object({
    timeZone: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe('IANA time zone name, e.g. "Europe/Paris", "America/New_York" or "UTC". Omit for UTC.')
  })
);

const searchFilesInputSchema = zodSchema(
  z.object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(SEARCH_QUERY_MAX_CHARS)
      .describe("Words or a phrase to look for in the documents people brought into this room."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(SEARCH_LIMIT_MAX)
      .default(SEARCH_LIMIT_DEFAULT)
      .describe(`Maximum number of passages to return (1-${SEARCH_LIMIT_MAX}, default ${SEARCH_LIMIT_DEFAULT}).`)
  })
);

const searchHistoryInputSchema = zodSchema(
  z.object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(SEARCH_QUERY_MAX_CHARS)
      .describe("Words or a phrase to look for in earlier messages of this room."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(SEARCH_LIMIT_MAX)
      .default(SEARCH_LIMIT_DEFAULT)
      .describe(`Maximum number of matches to return (1-${SEARCH_LIMIT_MAX}, default ${SEARCH_LIMIT_DEFAULT}).`)
  })
);

export type CurrentTimeResult =
  | { iso: string; timeZone: string; formatted: string }
  | { error: string; timeZone: string };

export interface SearchHistoryResult {
  hits: HistorySearchHit[];
}

/** Returns the canonical IANA name, or null if the runtime does not know the zone. */
function resolveTimeZone(timeZone: string): string | null {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

function currentTime(now: Date, requested: string | undefined): CurrentTimeResult {
  const wanted = requested?.trim() || DEFAULT_TIME_ZONE;
  const timeZone = resolveTimeZone(wanted);
  if (timeZone === null) {
    return {
      error: `Unknown time zone "${wanted}". Use an IANA time zone name such as "Europe/Paris", "America/New_York" or "UTC".`,
      timeZone: wanted
    };
  }
  const formatted = new Intl.DateTimeFormat("en-US", {
    timeZone,
    dateStyle: "full",
    timeStyle: "long"
  }).format(now);
  return { iso: now.toISOString(), timeZone, formatted };
}

interface SearchFilesResult {
  passages: FileSearchHit[];
}

/** `search_files`: the room's documents by keywords (the same index a turn's retrieval reads). */
function searchFilesTool(searchFiles: NonNullable<RoomToolDeps["searchFiles"]>) {
  return tool({
    description:
      "Search the documents (PDFs, text, Markdown, CSV, JSON, HTML) people added to this chat room by keywords. " +
      "Use this when a question may be answered by a file of the room and the passages you were given do not " +
      "answer it. Returns passages, each with its file and page or lines: name them when you use them.",
    inputSchema: searchFilesInputSchema,
    execute: async ({ query, limit }): Promise<SearchFilesResult> => ({
      passages: (await searchFiles(query, limit)).slice(0, limit)
    })
  });
}

export function createRoomTools(deps: RoomToolDeps) {
  return {
    ...(deps.searchFiles ? { search_files: searchFilesTool(deps.searchFiles) } : {}),
    get_current_time: tool({
      description:
        "Get the current date and time. Use this whenever the answer depends on today's date, the current time, " +
        "the day of the week, or how long ago/until something is. Pass an IANA time zone if the user mentions a place " +
        "or zone; otherwise UTC is used. Never guess the current date without calling this.",
      inputSchema: currentTimeInputSchema,
      execute: async ({ timeZone }): Promise<CurrentTimeResult> => currentTime(deps.now(), timeZone)
    }),

    search_room_history: tool({
      description:
        "Search earlier messages in this chat room by keywords. Use this when the user refers to something said " +
        "before that is not in the visible conversation (e.g. 'what did we decide about X', 'who mentioned Y'), " +
        "or when older context would help. Returns matching messages with short snippets.",
      inputSchema: searchHistoryInputSchema,
      execute: async ({ query, limit }): Promise<SearchHistoryResult> => {
        const hits = await deps.searchHistory(query, limit);
        return { hits: hits.slice(0, limit) };
      }
    })
  } satisfies ToolSet;
}
