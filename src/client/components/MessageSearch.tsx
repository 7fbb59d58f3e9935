/**
 * Message results under the room filter (Ctrl+K): the same query searched
 * across every room's history, grouped by room. Choosing one opens the
 * room at that message (`?m=`).
 */
import { AlertTriangle } from "lucide-react";
import { useMemo } from "react";
import { Link } from "react-router";
import { useDebouncedSearch } from "@/client/hooks/use-debounced-search";
import { useSearchTheRest } from "@/client/hooks/use-search-the-rest";
import { api } from "@/client/lib/api";
import { messagePath } from "@/client/lib/routes";
import { relativeTime } from "@/client/lib/time";
import type { SearchResult } from "@/shared/search";
import { Highlighted } from "./Highlighted";
import { Alert } from "./ui/Alert";
import { Button } from "./ui/Button";
import { ErrorNotice } from "./ui/Field";
import { Spinner } from "./ui/Spinner";

const RESULT_LIMIT = 30;

function groupByRoom(results: SearchResult[]) {
  const groups = new Map<string, { roomId: string; roomName: string; hits: SearchResult[] }>();
  for (const result of results) {
    const group = groups.get(result.roomId) ?? { roomId: result.roomId, roomName: result.roomName, hits: [] };
    group.hits.push(result);
    groups.set(result.roomId, group);
  }
  return [...groups.values()];
}

export function MessageSearchResults({ query, onSelect }: { query: string; onSelect: () => void }) {
  const state = useDebouncedSearch(query, (q, signal) => api.search(q, RESULT_LIMIT, signal));
  const rest = useSearchTheRest(state.status === "done" ? state.value : null, query.trim(), RESULT_LIMIT);
  const answer = rest.value;
  const groups = useMemo(() => (answer ? groupByRoom(answer.results) : []), [answer]);
  if (state.status === "idle") return null;
  const now = Date.now();
  return (
    <section aria-label="Messages matching the search" className="mt-3 border-t border-edge-quiet pt-2">
      <h2 className="flex items-center gap-2 px-3 pb-1 text-[11px] font-semibold tracking-wide text-fg-muted uppercase">
        Messages
        {state.status === "loading" && <Spinner className="size-3" />}
      </h2>
      {state.status === "error" && (
        <ErrorNotice variant="inline" className="px-3 py-2 text-[13px]">
          Search failed: {state.message}
        </ErrorNotice>
      )}
      {answer?.partial && (
        <Alert
          tone="warning"
          role="status"
          icon={<AlertTriangle className="mt-0.5 size-3 shrink-0" aria-hidden="true" />}
          className="mx-3 my-1 px-2 py-1.5 text-[12px]"
        >
          <p>
            {answer.missingCount} of {answer.roomsSearched} rooms did not answer in time; their matches are missing.
          </p>
          {rest.progress ? (
            <p className="mt-1 flex items-center gap-1.5">
              <Spinner className="size-3" />
              Searching the rest: {rest.progress.asked} of {rest.progress.total} rooms asked…
            </p>
          ) : (
            <Button size="sm" variant="secondary" className="mt-1.5" onClick={rest.run}>
              Search the rest
            </Button>
          )}
        </Alert>
      )}
      {rest.error && (
        <ErrorNotice variant="inline" className="px-3 py-1 text-[12px]">
          Could not search the rest: {rest.error}
        </ErrorNotice>
      )}
      {answer && groups.length === 0 && !answer.partial && (
        <p role="status" className="px-3 py-2 text-[13px] text-fg-muted">
          No messages match.
        </p>
      )}
      <div id="message-results">
        {groups.map((group) => (
          <div key={group.roomId} className="pb-1" data-search-room={group.roomId}>
            <h3 className="truncate px-3 pt-1.5 text-[12px] font-medium text-fg-3">{group.roomName}</h3>
            <ul>
              {group.hits.map((hit) => (
                <li key={hit.messageId}>
                  <Link
                    to={messagePath(hit.roomId, hit.messageId)}
                    onClick={onSelect}
                    data-search-hit={hit.messageId}
                    className="block rounded-lg px-3 py-1.5 text-[13px] hover:bg-surface-3/50"
                  >
                    <span className="flex items-baseline gap-2 text-[11px] text-fg-muted">
                      <span className="truncate">
                        {hit.role === "assistant" ? "Assistant" : (hit.author ?? "Someone")}
                      </span>
                      {hit.createdAt && <span className="shrink-0">{relativeTime(hit.createdAt, now)}</span>}
                    </span>
                    <span className="line-clamp-2 break-words text-fg-3">
                      <Highlighted text={hit.snippet} marks={hit.marks} />
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
    </section>
  );
}
