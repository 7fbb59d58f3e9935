/**
 * Room settings: the room's personas (add, edit, delete) and who answers a
 * message that mentions nobody. Every change goes to REST at once; the
 * room's synced state brings the new roster to every open browser.
 */
import { Pencil, Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import {
  type DefaultResponder,
  MAX_PERSONAS_PER_ROOM,
  PERSONA_PALETTE,
  PERSONA_TOOLS,
  type Persona,
  type PersonaTool
} from "../../../shared/personas";
import { api, errorMessage } from "../../lib/api";
import { Button } from "../ui/Button";
import { ErrorNotice, Field, inputClass } from "../ui/Field";

const RESPONDER_LABELS: Record<DefaultResponder, string> = {
  assistant: "The assistant",
  personas: "Every persona",
  nobody: "Nobody (AI speaks only when @-mentioned)"
};

const TOOL_LABELS: Record<PersonaTool, string> = {
  get_current_time: "Current time",
  search_room_history: "Search room history",
  remember: "Remember (private notes)",
  recall: "Recall (private notes)"
};

interface Draft {
  id: string | null;
  name: string;
  colour: string;
  systemPrompt: string;
  model: string;
  temperature: string;
  tools: PersonaTool[];
}

const emptyDraft = (taken: readonly Persona[]): Draft => ({
  id: null,
  name: "",
  colour: PERSONA_PALETTE.find((c) => !taken.some((p) => p.colour === c)) ?? PERSONA_PALETTE[0],
  systemPrompt: "",
  model: "",
  temperature: "",
  tools: ["remember", "recall"]
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

      {personas.length > 0 && (
        <ul className="divide-y divide-surface-2" aria-label="Personas">
          {personas.map((p) => (
            <li key={p.id} className="flex items-center gap-2 py-1.5" data-persona={p.name}>
              <span className="size-3 shrink-0 rounded-full" style={{ backgroundColor: p.colour }} aria-hidden="true" />
              <span className="min-w-0 flex-1 truncate text-sm font-medium">@{p.name}</span>
              <span className="truncate text-xs text-fg-muted">{p.model ?? "room model"}</span>
              <Button
                type="button"
                size="sm"
                variant="ghost"
                aria-label={`Edit @${p.name}`}
                onClick={() => setDraft(toDraft(p))}
              >
                <Pencil className="size-3.5" aria-hidden="true" />
              </Button>
              <Button
                type="button"
                size="sm"
                variant="ghost"
                aria-label={`Delete @${p.name}`}
                disabled={pending}
                onClick={() => {
                  if (window.confirm(`Delete @${p.name}? Its private notes are deleted too.`)) {
                    void run(() => api.deletePersona(roomId, p.id));
                  }
                }}
              >
                <Trash2 className="size-3.5" aria-hidden="true" />
              </Button>
            </li>
          ))}
        </ul>
      )}

      {draft && (
        <fieldset className="space-y-3 rounded-md bg-surface-well p-3" aria-label="Persona editor">
          <div className="flex gap-2">
            <Field label="Name" className="flex-1" hint="One word, used as @Name.">
              {(props) => (
                <input
                  {...props}
                  className={inputClass}
                  value={draft.name}
                  maxLength={24}
                  onChange={(e) => setDraft({ ...draft, name: e.target.value })}
                />
              )}
            </Field>
            <Field label="Colour">
              {(props) => (
                <input
                  {...props}
                  type="color"
                  className="h-9 w-14 cursor-pointer rounded border border-edge-strong"
                  value={draft.colour}
                  onChange={(e) => setDraft({ ...draft, colour: e.target.value })}
                />
              )}
            </Field>
          </div>
          <Field label="System prompt">
            {(props) => (
              <textarea
                {...props}
                rows={3}
                className={inputClass}
                value={draft.systemPrompt}
                onChange={(e) => setDraft({ ...draft, systemPrompt: e.target.value })}
              />
            )}
          </Field>
          <div className="flex gap-2">
            <Field label="Model" className="flex-1" hint="Empty: the room's model.">
              {(props) => (
                <input
                  {...props}
                  className={inputClass}
                  value={draft.model}
                  onChange={(e) => setDraft({ ...draft, model: e.target.value })}
                />
              )}
            </Field>
            <Field label="Temperature" className="w-32" hint="Empty: the room's.">
              {(props) => (
                <input
                  {...props}
                  inputMode="decimal"
                  className={inputClass}
                  value={draft.temperature}
                  onChange={(e) => setDraft({ ...draft, temperature: e.target.value })}
                />
              )}
            </Field>
          </div>
          <fieldset className="space-y-1">
            <legend className="text-sm font-medium text-fg-2">Tools it may use</legend>
            {PERSONA_TOOLS.map((tool) => (
              <label key={tool} className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={draft.tools.includes(tool)}
                  onChange={(e) =>
                    setDraft({
                      ...draft,
                      tools: e.target.checked ? [...draft.tools, tool] : draft.tools.filter((t) => t !== tool)
                    })
                  }
                />
                {TOOL_LABELS[tool]}
              </label>
            ))}
          </fieldset>
          <div className="flex justify-end gap-2">
            <Button type="button" size="sm" variant="ghost" onClick={() => setDraft(null)}>
              Cancel
            </Button>
            <Button type="button" size="sm" variant="primary" disabled={pending || !draft.name.trim()} onClick={save}>
              {draft.id ? "Save persona" : "Add persona"}
            </Button>
          </div>
        </fieldset>
      )}

      <Field label="When a message mentions nobody, who answers?">
        {(props) => (
          <select
            {...props}
            className={inputClass}
            value={responder}
            disabled={pending}
            onChange={(e) => {
              const next = e.target.value as DefaultResponder;
              setResponder(next);
              void run(() => api.updateRoom(roomId, { defaultResponder: next }));
            }}
          >
            {(Object.keys(RESPONDER_LABELS) as DefaultResponder[]).map((value) => (
              <option key={value} value={value}>
                {RESPONDER_LABELS[value]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {error && <ErrorNotice>{error}</ErrorNotice>}
    </section>
  );
}
