import { CloudOff, Trash2 } from "lucide-react";
import { type FormEvent, useEffect, useState } from "react";
import { MAX_SYSTEM_PROMPT_LENGTH, MAX_TEMPERATURE, MIN_TEMPERATURE } from "../../shared/constants";
import type { RoomState, RoomSummary, UpdateRoomBody } from "../../shared/protocol";
import { useRoomList } from "../hooks/use-room-list";
import { api, errorMessage } from "../lib/api";
import { formatCount, fullDateTime } from "../lib/time";
import { PersonasSection } from "./personas/PersonasSection";
import { validateModel, validateRoomName, validateTemperature } from "./RoomDialogs";
import { Alert } from "./ui/Alert";
import { Button } from "./ui/Button";
import { Dialog, DialogFooter } from "./ui/Dialog";
import { ErrorNotice, Field, inputClass } from "./ui/Field";
import { Spinner } from "./ui/Spinner";

export function RoomSettingsDialog({
  roomId,
  summary,
  state,
  open,
  onClose,
  onDelete
}: {
  roomId: string;
  summary: RoomSummary | undefined;
  state: RoomState | undefined;
  open: boolean;
  onClose: () => void;
  onDelete: () => void;
}) {
  const [loaded, setLoaded] = useState<RoomState | null>(null);
  const [name, setName] = useState("");
  const [systemPrompt, setSystemPrompt] = useState("");
  const [model, setModel] = useState("");
  const [temperature, setTemperature] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const { upsert } = useRoomList();

  // Take a snapshot of the settings when the panel opens.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a snapshot on open only, not on every live update
  useEffect(() => {
    if (!open) return;
    setError(null);
    setSaved(false);
    const apply = (s: RoomState) => {
      setLoaded(s);
      setName(s.settings.name);
      setSystemPrompt(s.settings.systemPrompt);
      setModel(s.settings.model ?? "");
      setTemperature(s.settings.temperature === null ? "" : String(s.settings.temperature));
    };
    if (state?.settings) {
      apply(state);
      return;
    }
    const controller = new AbortController();
    api.getRoom(roomId, controller.signal).then(apply, (err: unknown) => {
      if (!controller.signal.aborted) setError(errorMessage(err));
    });
    return () => controller.abort();
  }, [open, roomId]);

  const live = state ?? loaded;
  const nameError = validateRoomName(name);
  const modelError = validateModel(model);
  const temperatureError = validateTemperature(temperature);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!loaded || nameError || modelError || temperatureError) return;
    const patch: UpdateRoomBody = {};
    const base = loaded.settings;
    if (name.trim() !== base.name) patch.name = name.trim();
    if (systemPrompt !== base.systemPrompt) patch.systemPrompt = systemPrompt;
    const nextModel = model.trim() || null;
    if (nextModel !== base.model) patch.model = nextModel;
    const nextTemperature = temperature.trim() === "" ? null : Number(temperature);
    if (nextTemperature !== base.temperature) patch.temperature = nextTemperature;
    if (Object.keys(patch).length === 0) return onClose();
    setPending(true);
    setError(null);
    try {
      const detail = await api.updateRoom(roomId, patch);
      upsert(detail);
      setLoaded({
        settings: detail.settings,
        usage: detail.usage,
        activeModel: detail.activeModel,
        offline: detail.offline
      });
      setSaved(true);
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setPending(false);
    }
  };

  const tempValue = temperature.trim() === "" ? null : Number(temperature);

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Room settings"
      description="Changes apply to everyone in this room."
      variant="sheet"
    >
      <form onSubmit={submit} noValidate className="flex min-h-full flex-col">
        {!loaded && !error ? (
          <div className="flex flex-1 items-center justify-center py-16 text-fg-muted">
            <Spinner label="Loading settings" />
          </div>
        ) : (
          <div className="flex-1 space-y-5 px-5 py-4">
            {live && (
              <section aria-label="Usage" className="grid grid-cols-3 gap-2">
                {[
                  ["Tokens used", formatCount(live.usage.totalTokens)],
                  ["Input", formatCount(live.usage.inputTokens)],
                  ["Output", formatCount(live.usage.outputTokens)]
                ].map(([label, value]) => (
                  <div key={label} className="rounded-lg bg-surface-soft px-3 py-2">
                    <div className="text-[11px] font-medium tracking-wide text-fg-muted uppercase">{label}</div>
                    <div className="text-base font-semibold text-fg tabular-nums">{value}</div>
                  </div>
                ))}
              </section>
            )}
            {live && (
              <p className="text-sm text-fg-soft">
                Answering model: <span className="font-medium text-fg">{live.activeModel}</span>
                {summary && (
                  <>
                    {" "}
                    · {summary.messageCount.toLocaleString()} messages · created{" "}
                    <time dateTime={new Date(summary.createdAt).toISOString()}>{fullDateTime(summary.createdAt)}</time>
                  </>
                )}
              </p>
            )}
            {live?.offline && (
              <Alert tone="warning" icon={<CloudOff className="mt-0.5 size-4 shrink-0" aria-hidden="true" />}>
                <p>
                  The server has no model provider configured, so the built-in offline model answers. The model and
                  temperature below take effect once OPENAI_API_KEY or OPENAI_BASE_URL is set.
                </p>
              </Alert>
            )}

            <Field label="Name" error={nameError}>
              {(props) => (
                <input
                  {...props}
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                  className={inputClass}
                  autoComplete="off"
                />
              )}
            </Field>
            <Field
              label="System prompt"
              hint="Instructions the assistant follows in this room."
              counter={
                systemPrompt.length > MAX_SYSTEM_PROMPT_LENGTH * 0.8
                  ? `${systemPrompt.length}/${MAX_SYSTEM_PROMPT_LENGTH}`
                  : null
              }
            >
              {(props) => (
                <textarea
                  {...props}
                  value={systemPrompt}
                  maxLength={MAX_SYSTEM_PROMPT_LENGTH}
                  onChange={(e) => setSystemPrompt(e.target.value)}
                  rows={6}
                  placeholder="No system prompt"
                  className={`${inputClass} resize-y leading-6`}
                />
              )}
            </Field>
            <Field label="Model" error={modelError} hint="Empty: the server default.">
              {(props) => (
                <input
                  {...props}
                  value={model}
                  onChange={(e) => setModel(e.target.value)}
                  placeholder={live && !live.settings.model ? live.activeModel : "Server default"}
                  className={inputClass}
                  autoComplete="off"
                />
              )}
            </Field>
            <Field
              label="Temperature"
              error={temperatureError}
              hint="Lower is more focused, higher more varied. Empty: the provider default."
            >
              {(props) => (
                <div className="flex items-center gap-3">
                  <input
                    type="range"
                    aria-label="Temperature slider"
                    min={MIN_TEMPERATURE}
                    max={MAX_TEMPERATURE}
                    step={0.1}
                    value={tempValue ?? 1}
                    onChange={(e) => setTemperature(e.target.value)}
                    className={`flex-1 accent-accent ${tempValue === null ? "opacity-40" : ""}`}
                  />
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
                    className={`${inputClass} w-24`}
                  />
                  {temperature !== "" && (
                    <Button size="sm" variant="ghost" onClick={() => setTemperature("")}>
                      Reset
                    </Button>
                  )}
                </div>
              )}
            </Field>
            {error && <ErrorNotice>{error}</ErrorNotice>}
            {saved && (
              <p role="status" className="text-sm text-success">
                Saved.
              </p>
            )}

            <PersonasSection
              roomId={roomId}
              personas={state?.personas ?? loaded?.personas ?? []}
              defaultResponder={(state ?? loaded)?.settings.defaultResponder ?? "assistant"}
            />

            <section className="rounded-lg border border-danger-line p-3">
              <h3 className="text-sm font-semibold text-danger-strong">Danger zone</h3>
              <div className="mt-1 flex flex-wrap items-center justify-between gap-2">
                <p className="text-sm text-fg-subtle">
                  Delete this room and all of its messages for everyone.
                </p>
                <Button size="sm" variant="secondary" onClick={onDelete} className="text-danger">
                  <Trash2 className="size-3.5" aria-hidden="true" />
                  Delete room
                </Button>
              </div>
            </section>
          </div>
        )}
        <DialogFooter>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="primary" type="submit" disabled={pending || !loaded}>
            {pending && <Spinner className="[&_svg]:size-3.5" />}
            Save changes
          </Button>
        </DialogFooter>
      </form>
    </Dialog>
  );
}
