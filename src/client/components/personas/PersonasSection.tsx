/**
 * Room settings: the room's personas (add, edit, delete) and who answers a
 * message that mentions nobody. Every change goes to REST at once; the
 * room's synced state brings the new roster to every open browser.
 */
import { Plus } from "lucide-react";
import { useState } from "react";
import { Button } from "@/client/components/ui/Button";
import { ErrorNotice, Field, inputClass } from "@/client/components/ui/Field";
import { api, errorMessage } from "@/client/lib/api";
import { type DefaultResponder, MAX_PERSONAS_PER_ROOM, PERSONA_PALETTE, type Persona } from "@/shared/personas";
import { type Draft, PersonaEditor } from "./PersonaEditor";
import { PersonaList } from "./PersonaList";

const RESPONDER_LABELS: Record<DefaultResponder, string> = {
  assistant: "The assistant",
  personas: "Every persona",
  nobody: "Nobody (AI speaks only when @-mentioned)",
  auto: "Auto (the assistant answers when a message needs it)"
};

const emptyDraft = (taken: readonly Persona[]): Draft => ({
  id: null,
  name: "",
  colour: PERSONA_PALETTE.find((c) => !taken.some((p) => p.colour === c)) ?? PERSONA_PALETTE[0],
  systemPrompt: "",
  model: "",
  temperature: "",
  tools: ["remember", "recall", "react"]
});

function toDraft(p: Persona): Draft {
  return {
    id: p.id,
    name: p.name,
    colour: p.colour,
    systemPrompt: p.systemPrompt,
    model: p.model ?? "",
    temperature: p.temperature === null ? "" : String(p.temperature),
    tools: p.tools
  };
}

function ResponderField({
  value,
  disabled,
  onChange
}: {
  value: DefaultResponder;
  disabled: boolean;
  onChange: (value: DefaultResponder) => void;
}) {
  return (
    <Field label="When a message mentions nobody, who answers?">
      {(props) => (
        <select
          {...props}
          className={inputClass}
          value={value}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value as DefaultResponder)}
        >
          {(Object.keys(RESPONDER_LABELS) as DefaultResponder[]).map((value) => (
            <option key={value} value={value}>
              {RESPONDER_LABELS[value]}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function PersonasSection({
  roomId,
  personas,
  defaultResponder
}: {
  roomId: string;
  personas: Persona[];
  defaultResponder: DefaultResponder;
}) {
  const [draft, setDraft] = useState<Draft | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [responder, setResponder] = useState<DefaultResponder>(defaultResponder);

  const run = async (action: () => Promise<unknown>) => {
    setPending(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (err) {
      setError(errorMessage(err));
      return false;
    } finally {
      setPending(false);
    }
  };

  const save = async () => {
    if (!draft) return;
    const temperature = draft.temperature.trim() === "" ? null : Number(draft.temperature);
    const body = {
      name: draft.name.trim(),
      colour: draft.colour,
      systemPrompt: draft.systemPrompt,
      model: draft.model.trim() || null,
      temperature,
      tools: draft.tools
    };
    const ok = await run(() =>
      draft.id ? api.updatePersona(roomId, draft.id, body) : api.createPersona(roomId, body)
    );
    if (ok) setDraft(null);
  };

  return (
    <section aria-labelledby="personas-heading" className="space-y-3 rounded-lg border border-edge p-3">
      <div className="flex items-center justify-between gap-2">
        <h3 id="personas-heading" className="text-sm font-semibold text-fg">
          Personas{" "}
          <span className="font-normal text-fg-muted">
            ({personas.length}/{MAX_PERSONAS_PER_ROOM})
          </span>
        </h3>
        {!draft && personas.length < MAX_PERSONAS_PER_ROOM && (
          <Button type="button" size="sm" variant="secondary" onClick={() => setDraft(emptyDraft(personas))}>
            <Plus className="size-3.5" aria-hidden="true" />
            Add persona
          </Button>
        )}
      </div>
      <p className="text-xs text-fg-muted">
        Mention a persona with <b>@Name</b> to ask it; start a message with <b>/panel</b> to ask them all.
      </p>

      <PersonaList
        personas={personas}
        pending={pending}
        onEdit={(p) => setDraft(toDraft(p))}
        onDelete={(p) => void run(() => api.deletePersona(roomId, p.id))}
      />

      {draft && (
        <PersonaEditor
          draft={draft}
          setDraft={setDraft}
          pending={pending}
          onCancel={() => setDraft(null)}
          onSave={save}
        />
      )}

      <ResponderField
        value={responder}
        disabled={pending}
        onChange={(next) => {
          setResponder(next);
          void run(() => api.updateRoom(roomId, { defaultResponder: next }));
        }}
      />
      {error && <ErrorNotice>{error}</ErrorNotice>}
    </section>
  );
}
