/**
 * Lines under the room's header: where a fork came from, an offline model, an
 * MCP server's sign-in that did not work; and the transcript's loading skeleton.
 */
import { CloudOff, TriangleAlert, X } from "lucide-react";
import { Link } from "react-router";
import { useRoomSearchParams } from "@/client/components/room/room-route";
import { IconButton } from "@/client/components/ui/Button";
import { messagePath } from "@/client/lib/routes";
import type { RoomState } from "@/shared/protocol";

/**
 * Back from an MCP server's OAuth sign-in that failed, the Worker sends the
 * browser to the room with `?mcp_error=<why>` (server/domain/tools/mcp-oauth.ts):
 * say so, until dismissed.
 */
function McpSignInFailed() {
  const [params, setParams] = useRoomSearchParams();
  const why = params.get("mcp_error");
  if (!why) return null;
  const dismiss = () =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete("mcp_error");
        return next;
      },
      { replace: true }
    );
  return (
    <div
      role="alert"
      className="flex shrink-0 items-center justify-center gap-2 border-b border-danger-line bg-danger-bg px-4 py-1 text-xs text-danger-fg"
    >
      <TriangleAlert className="size-3.5 shrink-0" aria-hidden="true" />
      <span className="min-w-0">
        <b className="font-semibold">Signing in to an MCP server did not work.</b> {why.slice(0, 300)} Try Sign in again
        from the room's tools.
      </span>
      <IconButton size="sm" label="Dismiss" onClick={dismiss}>
        <X />
      </IconButton>
    </div>
  );
}

export function RoomBanners({ state }: { state: RoomState | undefined }) {
  return (
    <>
      {state?.origin && (
        <div className="flex shrink-0 items-center justify-center gap-1.5 border-b border-edge-quiet px-4 py-1 text-xs text-fg-muted">
          Forked from
          <Link
            className="font-medium text-accent-fg hover:underline"
            to={messagePath(state.origin.roomId, state.origin.messageId)}
          >
            {state.origin.roomName}
          </Link>
        </div>
      )}
      <McpSignInFailed />
      {state?.offline && (
        <div className="flex shrink-0 items-center justify-center gap-2 border-b border-warning-line bg-warning-bg px-4 py-1.5 text-xs text-warning-fg">
          <CloudOff className="size-3.5 shrink-0" aria-hidden="true" />
          <span>
            <b className="font-semibold">Offline model.</b> No model provider is configured on the server, so a built-in
            offline model answers.
          </span>
        </div>
      )}
    </>
  );
}

export function ConversationSkeleton() {
  return (
    <div role="status" className="flex min-h-0 flex-1 flex-col" aria-busy="true" aria-label="Loading messages">
      <div className="mx-auto w-full max-w-3xl flex-1 space-y-6 px-4 pt-8 sm:px-6">
        {[0.7, 0.45, 0.85].map((w) => (
          <div key={w} className="flex animate-pulse gap-3">
            <div className="size-8 rounded-full bg-edge" />
            <div className="flex-1 space-y-2 pt-1">
              <div className="h-3 w-24 rounded bg-edge" />
              <div className="h-3 rounded bg-surface-3/70" style={{ width: `${w * 100}%` }} />
            </div>
          </div>
        ))}
      </div>
    </div>
  );
}
