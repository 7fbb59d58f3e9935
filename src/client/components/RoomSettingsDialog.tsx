import { CloudOff, Trash2 } from "lucide-react";
import { type FormEvent, type ReactNode, useEffect, useState } from "react";
import { usePendingAction } from "@/client/hooks/use-pending-action";
import { allows, useRoomAccess } from "@/client/hooks/use-room-access";
import { useRoomList } from "@/client/hooks/use-room-list";
import { api, errorMessage } from "@/client/lib/api";
import { draftInvalid, draftOf, type SettingsDraft, settingsPatch, validateRoomName } from "@/client/lib/room-settings";
import { countOf, formatCount, fullDateTime } from "@/client/lib/time";
import { MAX_SYSTEM_PROMPT_LENGTH } from "@/shared/constants";
import { whoMay } from "@/shared/permissions";
import type { RoomState, RoomSummary } from "@/shared/protocol";
import { PersonasSection } from "./personas/PersonasSection";
import { ModelField, RoomNameField, SystemPromptField, TemperatureField } from "./RoomFields";
import { Alert } from "./ui/Alert";
import { Button } from "./ui/Button";
import { Dialog, DialogActions } from "./ui/Dialog";
import { ErrorNotice } from "./ui/Field";
import { Spinner } from "./ui/Spinner";

interface SettingsProps {
  roomId: string;
  summary: RoomSummary | undefined;
  /** The room's live state, when the room is open (others' changes arrive here). */
  state: RoomState | undefined;
  onClose: () => void;
  onDelete: () => void;
}

export function RoomSettingsDialog({ open, ...props }: SettingsProps & { open: boolean }) {
  return (
    <Dialog
      open={open}
      onClose={props.onClose}
      title="Room settings"
      description="Changes apply to everyone in this room."
      variant="sheet"
    >
      <RoomSettingsLoader {...props} />
    </Dialog>
  );
}

/**
 * Mounted each time the panel opens (see Dialog). The form edits a snapshot
 * of the settings taken then, the live state when there is one, else asked
 * of the server: others' changes while it is open do not overwrite what is
 * being typed.
 */
function RoomSettingsLoader(props: SettingsProps) {
  const { roomId, state, onClose } = props;
  const [snapshot, setSnapshot] = useState<RoomState | null>(state ?? null);
  const [error, setError] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: fetched once on open, only when no live state was there to snapshot
  useEffect(() => {
    if (snapshot) return;
    const controller = new AbortController();
    api.getRoom(roomId, controller.signal).then(setSnapshot, (err: unknown) => {
      if (!controller.signal.aborted) setError(errorMessage(err));
    });
    return () => controller.abort();
  }, [roomId]);

  if (snapshot) return <RoomSettingsForm {...props} snapshot={snapshot} />;
  return (
    <div className="flex min-h-full flex-col">
      {error ? (
        <div className="flex-1 px-5 py-4">
          <ErrorNotice>{error}</ErrorNotice>
        </div>
      ) : (
        <div className="flex flex-1 items-center justify-center py-16 text-fg-muted">
          <Spinner label="Loading settings" />
        </div>
      )}
      <DialogActions label="Save changes" onCancel={onClose} disabled />
    </div>
  );
}

function UsageTiles({ usage }: { usage: RoomState["usage"] }) {
  return (
    <section aria-label="Usage" className="grid grid-cols-3 gap-2">
      {[
        ["Tokens used", formatCount(usage.totalTokens)],
        ["Input", formatCount(usage.inputTokens)],
        ["Output", formatCount(usage.outputTokens)]
      ].map(([label, value]) => (
        <div key={label} className="rounded-lg bg-surface-soft px-3 py-2">
          <div className="text-[11px] font-medium tracking-wide text-fg-muted uppercase">{label}</div>
          <div className="text-base font-semibold text-fg tabular-nums">{value}</div>
        </div>
      ))}
    </section>
  );
}

function DangerZone({ onDelete, may }: { onDelete: () => void; may: boolean }) {
  return (
    <section className="rounded-lg border border-danger-line p-3">
      <h3 className="text-sm font-semibold text-danger-strong">Danger zone</h3>
      <div className="mt-1 flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-fg-subtle">
          {may ? "Delete this room and all of its messages for everyone." : whoMay("room.delete")}
        </p>
        <Button
          size="sm"
          variant="secondary"
          onClick={onDelete}
          className="text-danger"
          disabled={!may}
          title={may ? undefined : whoMay("room.delete")}
        >
          <Trash2 className="size-3.5" aria-hidden="true" />
          Delete room
        </Button>
      </div>
    </section>
  );
}

/**
 * Fields a person may not change are disabled as a group (a disabled
 * fieldset disables every control in it), with the reason beside them and
 * as their tooltip: the server would refuse them anyway.
 */
function Guarded({ may, reason, children }: { may: boolean; reason: string; children: ReactNode }) {
  return (
    <fieldset disabled={!may} title={may ? undefined : reason} className="min-w-0 space-y-5 disabled:opacity-70">
      {!may && <p className="text-xs text-fg-muted">{reason}</p>}
      {children}
    </fieldset>
  );
}

/** What the assistant is told and which model answers: the owner's (room.settings). */
function AssistantFields({
  draft,
  set,
  live,
  may
}: {
  draft: SettingsDraft;
  set: (field: keyof SettingsDraft) => (value: string) => void;
  live: RoomState;
  may: boolean;
}) {
  return (
    <Guarded may={may} reason={whoMay("room.settings")}>
      <SystemPromptField
        value={draft.systemPrompt}
        onChange={set("systemPrompt")}
        rows={6}
        placeholder="No system prompt"
        hint="Instructions the assistant follows in this room."
        counter={
          draft.systemPrompt.length > MAX_SYSTEM_PROMPT_LENGTH * 0.8
            ? `${draft.systemPrompt.length}/${MAX_SYSTEM_PROMPT_LENGTH}`
            : null
        }
      />
      <ModelField
        value={draft.model}
        onChange={set("model")}
        placeholder={live.settings.model ? "Server default" : live.activeModel}
      />
      <TemperatureField
        value={draft.temperature}
        onChange={set("temperature")}
        hint="Lower is more focused, higher more varied. Empty: the provider default."
        slider
      />
    </Guarded>
  );
}

/** Starts from the snapshot (initial state from props); sends only what changed. */
function RoomSettingsForm({
  roomId,
  summary,
  state,
  onClose,
  onDelete,
  snapshot
}: SettingsProps & { snapshot: RoomState }) {
  const [draft, setDraft] = useState(() => draftOf(snapshot.settings));
  const set = (field: keyof SettingsDraft) => (value: string) => setDraft((d) => ({ ...d, [field]: value }));
  const { pending, error, run } = usePendingAction();
  const { upsert } = useRoomList();

  const live = state ?? snapshot;
  const nameError = validateRoomName(draft.name);
  const access = useRoomAccess(roomId);
  const may = {
    rename: allows(access, "room.rename"),
    settings: allows(access, "room.settings"),
    personas: allows(access, "room.personas"),
    delete: allows(access, "room.delete")
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (draftInvalid(draft)) return;
    const patch = settingsPatch(snapshot.settings, draft);
    if (Object.keys(patch).length === 0) return onClose();
    await run(async () => {
      upsert(await api.updateRoom(roomId, patch));
      onClose();
    });
  };

  return (
    <form onSubmit={submit} noValidate className="flex min-h-full flex-col">
      <div className="flex-1 space-y-5 px-5 py-4">
        <UsageTiles usage={live.usage} />
        <p className="text-sm text-fg-soft">
          Answering model: <span className="font-medium text-fg">{live.activeModel}</span>
          {summary && (
            <>
              {" "}
              · {countOf(summary.messageCount, "message")} · created{" "}
              <time dateTime={new Date(summary.createdAt).toISOString()}>{fullDateTime(summary.createdAt)}</time>
            </>
          )}
        </p>
        {live.offline && (
          <Alert tone="warning" icon={<CloudOff className="mt-0.5 size-4 shrink-0" aria-hidden="true" />}>
            <p>
              The server has no model provider configured, so the built-in offline model answers. The model and
              temperature below take effect once OPENAI_API_KEY or OPENAI_BASE_URL is set.
            </p>
          </Alert>
        )}

        <Guarded may={may.rename} reason={whoMay("room.rename")}>
          <RoomNameField value={draft.name} onChange={set("name")} error={nameError} />
        </Guarded>
        <AssistantFields draft={draft} set={set} live={live} may={may.settings} />
        {error && <ErrorNotice>{error}</ErrorNotice>}

        <Guarded may={may.personas} reason={whoMay("room.personas")}>
          <PersonasSection
            roomId={roomId}
            personas={live.personas ?? []}
            defaultResponder={live.settings.defaultResponder ?? "assistant"}
          />
        </Guarded>

        <DangerZone onDelete={onDelete} may={may.delete} />
      </div>
      <DialogActions
        label="Save changes"
        onCancel={onClose}
        pending={pending}
        disabled={!may.rename && !may.settings}
      />
    </form>
  );
}
