/**
 * A room's Tools (the room header's "More room actions" → Tools): the MCP
 * servers its assistant can call, each with its state and its tools'
 * policies, and a form to add one. Seeing and changing them is the room
 * owner's (and an admin's, `room.tools`); anyone else gets the server's
 * refusal, which says who may. While a server is still connecting the list is asked
 * again every few seconds, so it settles on ready or failed by itself.
 *
 * The list and the form are `McpServersEditor`, which the People and access
 * page shows too, over the workspace's routes (the servers every room offers).
 */
import { type ReactNode, useCallback, useEffect, useMemo, useState } from "react";
import { Dialog } from "@/client/components/ui/Dialog";
import { ErrorNotice } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { ApiError, errorMessage } from "@/client/lib/api";
import { anySettling } from "@/client/lib/mcp-view";
import { type McpServersApi, roomMcpApi } from "@/client/lib/tools-api";
import { MAX_MCP_SERVERS_PER_ROOM, type McpServerView } from "@/shared/tools";
import { AddServerForm } from "./AddServerForm";
import { McpServerItem } from "./McpServerItem";

/** How often the list is asked again while a server is connecting. */
const SETTLING_POLL_MS = 2_000;

export function ToolsDialog({
  roomId,
  roomName,
  open,
  onClose
}: {
  roomId: string;
  roomName: string;
  open: boolean;
  onClose: () => void;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      variant="sheet"
      title="Tools"
      description={`The MCP servers the assistant in “${roomName}” can call, and what it may do without asking.`}
    >
      <ToolsBody roomId={roomId} />
    </Dialog>
  );
}

/** Mounted each time the dialog opens (see Dialog): it asks for the servers afresh then. */
function ToolsBody({ roomId }: { roomId: string }) {
  const api = useMemo(() => roomMcpApi(roomId), [roomId]);
  return (
    <McpServersEditor
      api={api}
      max={MAX_MCP_SERVERS_PER_ROOM}
      offeredWhere="to the assistant"
      refusedNote="Anyone in the room can still approve or deny a call the assistant asks about, on its card in the conversation."
    />
  );
}

/** The servers of a room or of the workspace (`api`), their tools' policies, and the form that adds one. */
export function McpServersEditor({
  api,
  max,
  offeredWhere,
  refusedNote
}: {
  api: McpServersApi;
  max: number;
  /** Where a new server's tools are offered, as the end of "its tools are offered …". */
  offeredWhere: string;
  /** Said under a refusal (what the caller may still do). */
  refusedNote?: ReactNode;
}) {
  const [servers, setServers] = useState<McpServerView[] | null>(null);
  const [error, setError] = useState<{ message: string; refused: boolean } | null>(null);
  const [asked, setAsked] = useState(0);
  const reload = useCallback(() => setAsked((n) => n + 1), []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `asked` is the trigger (a change here, or the settling poll)
  useEffect(() => {
    const controller = new AbortController();
    api.servers(controller.signal).then(
      (list) => {
        setServers(list.servers);
        setError(null);
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        setError({ message: errorMessage(failure), refused: failure instanceof ApiError && failure.status === 403 });
      }
    );
    return () => controller.abort();
  }, [api, asked]);

  const settling = servers !== null && anySettling(servers.map((s) => s.state));
  useEffect(() => {
    if (!settling) return;
    const timer = setTimeout(reload, SETTLING_POLL_MS);
    return () => clearTimeout(timer);
  }, [settling, reload]);

  if (error?.refused) {
    return (
      <div className="space-y-2 px-5 py-4">
        <ErrorNotice>{error.message}</ErrorNotice>
        {refusedNote && <p className="text-xs text-fg-muted">{refusedNote}</p>}
      </div>
    );
  }
  if (!servers) {
    return (
      <div className="px-5 py-4">
        {error ? <ErrorNotice>{error.message}</ErrorNotice> : <Spinner label="Loading the MCP servers" />}
      </div>
    );
  }
  return (
    <div className="space-y-6 px-5 py-4">
      {error && <ErrorNotice>{error.message}</ErrorNotice>}
      <section aria-labelledby="servers-heading" className="space-y-2">
        <h3 id="servers-heading" className="flex items-center gap-2 text-sm font-semibold text-fg-2">
          MCP servers ({servers.length} of {max})
          {settling && <Spinner label="Waiting for a server to connect" className="[&_svg]:size-3.5" />}
        </h3>
        {servers.length === 0 ? (
          <p className="text-sm text-fg-muted">
            No servers yet. Add one below: its tools are offered {offeredWhere} from the next answer on.
          </p>
        ) : (
          <ul aria-label="MCP servers" className="space-y-2">
            {servers.map((server) => (
              <McpServerItem key={server.id} api={api} server={server} onChanged={reload} />
            ))}
          </ul>
        )}
        <p className="text-xs text-fg-muted">
          Allowed: called without asking. Ask first: a member approves each call on its card. Off: not offered.
        </p>
      </section>
      <AddServerForm api={api} onAdded={reload} />
    </div>
  );
}
