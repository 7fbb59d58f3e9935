/** The form for one persona: name and colour, system prompt, model, temperature and tools. */

import { Button } from "@/client/components/ui/Button";
import { Field, inputClass } from "@/client/components/ui/Field";
import { PERSONA_TOOLS, type PersonaTool } from "@/shared/personas";

const TOOL_LABELS: Record<PersonaTool, string> = {
  get_current_time: "Current time",
  search_room_history: "Search room history",
  search_files: "Search the room's files",
  remember: "Remember (private notes)",
  recall: "Recall (private notes)",
  react: "React instead of answering"
};

export interface Draft {
  id: string | null;
  name: string;
  colour: string;
  systemPrompt: string;
  model: string;
  temperature: string;
  tools: PersonaTool[];
}

function ToolChoices({ tools, onChange }: { tools: PersonaTool[]; onChange: (tools: PersonaTool[]) => void }) {
  return (
    <fieldset className="space-y-1">
      <legend className="text-sm font-medium text-fg-2">Tools it may use</legend>
      {PERSONA_TOOLS.map((tool) => (
        <label key={tool} className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={tools.includes(tool)}
            onChange={(e) => onChange(e.target.checked ? [...tools, tool] : tools.filter((t) => t !== tool))}
          />
          {TOOL_LABELS[tool]}
        </label>
      ))}
    </fieldset>
  );
}

export function PersonaEditor({
  draft,
  setDraft,
  pending,
  onCancel,
  onSave
}: {
  draft: Draft;
  setDraft: (draft: Draft) => void;
  pending: boolean;
  onCancel: () => void;
  onSave: () => void;
}) {
  return (
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
      <ToolChoices tools={draft.tools} onChange={(tools) => setDraft({ ...draft, tools })} />
      <div className="flex justify-end gap-2">
        <Button type="button" size="sm" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="button" size="sm" variant="primary" disabled={pending || !draft.name.trim()} onClick={onSave}>
          {draft.id ? "Save persona" : "Add persona"}
        </Button>
      </div>
    </fieldset>
  );
}
