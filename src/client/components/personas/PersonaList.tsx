/** The room's personas, each with Edit and Delete (deleting asks first: its private notes go too). */
import { Pencil, Trash2 } from "lucide-react";
import { Button } from "@/client/components/ui/Button";
import type { Persona } from "@/shared/personas";

export function PersonaList({
  personas,
  pending,
  onEdit,
  onDelete
}: {
  personas: Persona[];
  pending: boolean;
  onEdit: (persona: Persona) => void;
  onDelete: (persona: Persona) => void;
}) {
  if (personas.length === 0) return null;
  return (
    <ul className="divide-y divide-surface-2" aria-label="Personas">
      {personas.map((p) => (
        <li key={p.id} className="flex items-center gap-2 py-1.5" data-persona={p.name}>
          <span className="size-3 shrink-0 rounded-full" style={{ backgroundColor: p.colour }} aria-hidden="true" />
          <span className="min-w-0 flex-1 truncate text-sm font-medium">@{p.name}</span>
          <span className="truncate text-xs text-fg-muted">{p.model ?? "room model"}</span>
          <Button type="button" size="sm" variant="ghost" aria-label={`Edit @${p.name}`} onClick={() => onEdit(p)}>
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
                onDelete(p);
              }
            }}
          >
            <Trash2 className="size-3.5" aria-hidden="true" />
          </Button>
        </li>
      ))}
    </ul>
  );
}
