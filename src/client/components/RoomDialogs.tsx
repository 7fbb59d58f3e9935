import { type FormEvent, useState } from "react";
import { useNavigate } from "react-router";
import { usePendingAction } from "@/client/hooks/use-pending-action";
import { useRoomList } from "@/client/hooks/use-room-list";
import { api } from "@/client/lib/api";
import { draftInvalid, newRoomBody, type SettingsDraft, validateRoomName } from "@/client/lib/room-settings";
import { roomPath } from "@/client/lib/routes";
import { MAX_ROOM_NAME_LENGTH, MAX_TEMPERATURE, MIN_TEMPERATURE } from "@/shared/constants";
import type { RoomSummary } from "@/shared/protocol";
import { ModelField, RoomNameField, SystemPromptField, TemperatureField } from "./RoomFields";
import { Dialog, DialogActions } from "./ui/Dialog";
import { ErrorNotice } from "./ui/Field";

// ── Create ──

export function CreateRoomDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="New room"
      description="A shared conversation with the assistant. Anyone with the link can join."
    >
      <CreateRoomForm onClose={onClose} />
    </Dialog>
  );
}

/** Mounted each time the dialog opens (see Dialog), so it starts empty. */
function CreateRoomForm({ onClose }: { onClose: () => void }) {
  const [draft, setDraft] = useState<SettingsDraft>({ name: "", systemPrompt: "", model: "", temperature: "" });
  const set = (field: keyof SettingsDraft) => (value: string) => setDraft((d) => ({ ...d, [field]: value }));
  const { name } = draft;
  const [touched, setTouched] = useState(false);
  const { pending, error, run } = usePendingAction();
  const { upsert } = useRoomList();
  const navigate = useNavigate();

  const nameError = touched ? validateRoomName(name) : null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (draftInvalid(draft)) return;
    await run(async () => {
      const room = await api.createRoom(newRoomBody(draft));
      upsert(room);
      onClose();
      navigate(roomPath(room.id));
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <div className="space-y-4 px-5 py-4">
        <RoomNameField
          value={name}
          onChange={set("name")}
          error={nameError}
          counter={name.length > MAX_ROOM_NAME_LENGTH - 20 ? `${name.length}/${MAX_ROOM_NAME_LENGTH}` : null}
          data-autofocus
          maxLength={MAX_ROOM_NAME_LENGTH + 20}
          onBlur={() => name && setTouched(true)}
          placeholder="e.g. Trip planning"
        />
        <SystemPromptField
          value={draft.systemPrompt}
          onChange={set("systemPrompt")}
          rows={4}
          placeholder="You are a concise travel assistant…"
          hint="Optional. Instructions the assistant follows in this room."
        />
        <details className="group rounded-lg border border-edge">
          <summary className="cursor-pointer rounded-lg px-3 py-2 text-sm font-medium text-fg-3 select-none hover:bg-surface-soft">
            Model settings
          </summary>
          <div className="grid gap-4 border-t border-edge p-3 sm:grid-cols-2">
            <ModelField value={draft.model} onChange={set("model")} placeholder="gpt-4o-mini" />
            <TemperatureField
              value={draft.temperature}
              onChange={set("temperature")}
              hint={`${MIN_TEMPERATURE}–${MAX_TEMPERATURE}. Empty: default.`}
            />
          </div>
        </details>
        {error && <ErrorNotice>{error}</ErrorNotice>}
      </div>
      <DialogActions label="Create room" onCancel={onClose} pending={pending} />
    </form>
  );
}

// ── Rename ──

export function RenameRoomDialog({
  room,
  open,
  onClose
}: {
  room: Pick<RoomSummary, "id" | "name">;
  open: boolean;
  onClose: () => void;
}) {
  return (
    <Dialog open={open} onClose={onClose} title="Rename room">
      <RenameRoomForm room={room} onClose={onClose} />
    </Dialog>
  );
}

/** Mounted each time the dialog opens, so it starts from the room's name then. */
function RenameRoomForm({ room, onClose }: { room: Pick<RoomSummary, "id" | "name">; onClose: () => void }) {
  const [name, setName] = useState(room.name);
  const { pending, error, run } = usePendingAction();
  const { upsert } = useRoomList();

  const nameError = validateRoomName(name);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (nameError) return;
    if (name.trim() === room.name) return onClose();
    await run(async () => {
      upsert(await api.updateRoom(room.id, { name: name.trim() }));
      onClose();
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <div className="space-y-4 px-5 py-4">
        <RoomNameField
          label="Room name"
          value={name}
          onChange={setName}
          error={name ? nameError : null}
          data-autofocus
          onFocus={(e) => e.currentTarget.select()}
        />
        {error && <ErrorNotice>{error}</ErrorNotice>}
      </div>
      <DialogActions label="Save" onCancel={onClose} pending={pending} disabled={!!nameError} />
    </form>
  );
}

// ── Delete ──

type DeletableRoom = Pick<RoomSummary, "id" | "name" | "messageCount">;

export function DeleteRoomDialog({
  room,
  open,
  onClose,
  onDeleted
}: {
  room: DeletableRoom;
  open: boolean;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  return (
    <Dialog open={open} onClose={onClose} title="Delete room?">
      <DeleteRoomConfirm room={room} onClose={onClose} onDeleted={onDeleted} />
    </Dialog>
  );
}

function DeleteRoomConfirm({
  room,
  onClose,
  onDeleted
}: {
  room: DeletableRoom;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const { pending, error, run } = usePendingAction();
  const { remove } = useRoomList();

  const confirm = () =>
    run(async () => {
      await api.deleteRoom(room.id);
      remove(room.id);
      onClose();
      onDeleted?.();
    });

  return (
    <>
      <div className="space-y-3 px-5 py-4 text-sm text-fg-soft">
        <p>
          <span className="font-semibold break-words text-fg">“{room.name}”</span> and its{" "}
          {room.messageCount === 1 ? "1 message" : `${room.messageCount.toLocaleString()} messages`} will be deleted for
          everyone. This can’t be undone.
        </p>
        {error && <ErrorNotice>{error}</ErrorNotice>}
      </div>
      <DialogActions
        label="Delete room"
        tone="danger"
        onCancel={onClose}
        onAction={confirm}
        pending={pending}
        autoFocusCancel
      />
    </>
  );
}
