import { type FormEvent, useEffect, useState } from "react";
import { useNavigate } from "react-router";
import {
  MAX_MODEL_NAME_LENGTH,
  MAX_ROOM_NAME_LENGTH,
  MAX_SYSTEM_PROMPT_LENGTH,
  MAX_TEMPERATURE,
  MIN_TEMPERATURE
} from "../../shared/constants";
import type { RoomSummary } from "../../shared/protocol";
import { useRoomList } from "../hooks/use-room-list";
import { api, errorMessage } from "../lib/api";
import { roomPath } from "../lib/routes";
import { Button } from "./ui/Button";
import { Dialog, DialogFooter } from "./ui/Dialog";
import { ErrorNotice, Field, inputClass } from "./ui/Field";
import { Spinner } from "./ui/Spinner";

const MODEL_PATTERN = /^[\w.:/@-]+$/;

export function validateRoomName(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed) return "Give the room a name.";
  if (trimmed.length > MAX_ROOM_NAME_LENGTH) return `Use at most ${MAX_ROOM_NAME_LENGTH} characters.`;
  return null;
}

export function validateModel(model: string): string | null {
  const trimmed = model.trim();
  if (!trimmed) return null;
  if (trimmed.length > MAX_MODEL_NAME_LENGTH) return `Use at most ${MAX_MODEL_NAME_LENGTH} characters.`;
  if (!MODEL_PATTERN.test(trimmed)) return "Letters, digits and . : / @ _ - only.";
  return null;
}

export function validateTemperature(raw: string): string | null {
  if (raw.trim() === "") return null;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < MIN_TEMPERATURE || value > MAX_TEMPERATURE) {
    return `Between ${MIN_TEMPERATURE} and ${MAX_TEMPERATURE}, or empty for the default.`;
  }
  return null;
}

// ── Create ──

export function CreateRoomDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [name, setName] = useState("");
  const [systemPrompt, setSystemPrompt] = useState("");
  const [model, setModel] = useState("");
  const [temperature, setTemperature] = useState("");
  const [touched, setTouched] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { upsert } = useRoomList();
  const navigate = useNavigate();

  useEffect(() => {
    if (!open) return;
    setName("");
    setSystemPrompt("");
    setModel("");
    setTemperature("");
    setTouched(false);
    setError(null);
    setPending(false);
  }, [open]);

  const nameError = touched ? validateRoomName(name) : null;
  const modelError = validateModel(model);
  const temperatureError = validateTemperature(temperature);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (validateRoomName(name) || modelError || temperatureError) return;
    setPending(true);
    setError(null);
    try {
      const room = await api.createRoom({
        name: name.trim(),
        ...(systemPrompt.trim() ? { systemPrompt } : {}),
        ...(model.trim() ? { model: model.trim() } : {}),
        ...(temperature.trim() ? { temperature: Number(temperature) } : {})
      });
      upsert(room);
      onClose();
      navigate(roomPath(room.id));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setPending(false);
    }
  };

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="New room"
      description="A shared conversation with the assistant. Anyone with the link can join."
    >
      <form onSubmit={submit} noValidate>
        <div className="space-y-4 px-5 py-4">
          <Field
            label="Name"
            error={nameError}
            counter={name.length > MAX_ROOM_NAME_LENGTH - 20 ? `${name.length}/${MAX_ROOM_NAME_LENGTH}` : null}
          >
            {(props) => (
              <input
                {...props}
                data-autofocus
                value={name}
                maxLength={MAX_ROOM_NAME_LENGTH + 20}
                onChange={(e) => setName(e.target.value)}
                onBlur={() => name && setTouched(true)}
                placeholder="e.g. Trip planning"
                className={inputClass}
                autoComplete="off"
              />
            )}
          </Field>
          <Field label="System prompt" hint="Optional. Instructions the assistant follows in this room.">
            {(props) => (
              <textarea
                {...props}
                value={systemPrompt}
                maxLength={MAX_SYSTEM_PROMPT_LENGTH}
                onChange={(e) => setSystemPrompt(e.target.value)}
                rows={4}
                placeholder="You are a concise travel assistant…"
                className={`${inputClass} resize-y leading-6`}
              />
            )}
          </Field>
          <details className="group rounded-lg border border-edge">
            <summary className="cursor-pointer rounded-lg px-3 py-2 text-sm font-medium text-fg-3 select-none hover:bg-surface-soft">
              Model settings
            </summary>
            <div className="grid gap-4 border-t border-edge p-3 sm:grid-cols-2">
              <Field label="Model" error={modelError} hint="Empty: the server default.">
                {(props) => (
                  <input
                    {...props}
                    value={model}
                    onChange={(e) => setModel(e.target.value)}
                    placeholder="gpt-4o-mini"
                    className={inputClass}
                    autoComplete="off"
                  />
                )}
              </Field>
              <Field
                label="Temperature"
                error={temperatureError}
                hint={`${MIN_TEMPERATURE}–${MAX_TEMPERATURE}. Empty: default.`}
              >
                {(props) => (
                  <input
                    {...props}
                    type="number"
                    inputMode="decimal"
                    step="0.1"
                    min={MIN_TEMPERATURE}
                    max={MAX_TEMPERATURE}
                    value={temperature}
                    onChange={(e) => setTemperature(e.target.value)}
                    placeholder="Default"
                    className={inputClass}
                  />
                )}
              </Field>
            </div>
          </details>
          {error && <ErrorNotice>{error}</ErrorNotice>}
        </div>
        <DialogFooter>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="primary" type="submit" disabled={pending}>
            {pending && <Spinner className="[&_svg]:size-3.5" />}
            Create room
          </Button>
        </DialogFooter>
      </form>
    </Dialog>
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
  const [name, setName] = useState(room.name);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { upsert } = useRoomList();

  useEffect(() => {
    if (!open) return;
    setName(room.name);
    setError(null);
    setPending(false);
  }, [open, room.name]);

  const nameError = validateRoomName(name);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (nameError) return;
    if (name.trim() === room.name) return onClose();
    setPending(true);
    setError(null);
    try {
      const updated = await api.updateRoom(room.id, { name: name.trim() });
      upsert(updated);
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setPending(false);
    }
  };

  return (
    <Dialog open={open} onClose={onClose} title="Rename room">
      <form onSubmit={submit} noValidate>
        <div className="space-y-4 px-5 py-4">
          <Field label="Room name" error={name ? nameError : null}>
            {(props) => (
              <input
                {...props}
                data-autofocus
                onFocus={(e) => e.currentTarget.select()}
                value={name}
                onChange={(e) => setName(e.target.value)}
                className={inputClass}
                autoComplete="off"
              />
            )}
          </Field>
          {error && <ErrorNotice>{error}</ErrorNotice>}
        </div>
        <DialogFooter>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="primary" type="submit" disabled={pending || !!nameError}>
            {pending && <Spinner className="[&_svg]:size-3.5" />}
            Save
          </Button>
        </DialogFooter>
      </form>
    </Dialog>
  );
}

// ── Delete ──

export function DeleteRoomDialog({
  room,
  open,
  onClose,
  onDeleted
}: {
  room: Pick<RoomSummary, "id" | "name" | "messageCount">;
  open: boolean;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { remove } = useRoomList();

  useEffect(() => {
    if (open) {
      setError(null);
      setPending(false);
    }
  }, [open]);

  const confirm = async () => {
    setPending(true);
    setError(null);
    try {
      await api.deleteRoom(room.id);
      remove(room.id);
      onClose();
      onDeleted?.();
    } catch (err) {
      setError(errorMessage(err));
      setPending(false);
    }
  };

  return (
    <Dialog open={open} onClose={onClose} title="Delete room?">
      <div className="space-y-3 px-5 py-4 text-sm text-fg-soft">
        <p>
          <span className="font-semibold break-words text-fg">“{room.name}”</span> and its{" "}
          {room.messageCount === 1 ? "1 message" : `${room.messageCount.toLocaleString()} messages`} will be deleted for
          everyone. This can’t be undone.
        </p>
        {error && <ErrorNotice>{error}</ErrorNotice>}
      </div>
      <DialogFooter>
        <Button variant="ghost" onClick={onClose} data-autofocus>
          Cancel
        </Button>
        <Button variant="danger" onClick={confirm} disabled={pending}>
          {pending && <Spinner className="[&_svg]:size-3.5" />}
          Delete room
        </Button>
      </DialogFooter>
    </Dialog>
  );
}
