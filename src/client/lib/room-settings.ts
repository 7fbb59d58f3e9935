/**
 * The room settings form's rules, shared by the new-room dialog and the
 * settings panel: what each field accepts (the messages the form shows) and
 * what a form sends. Fields are strings as typed; empty model and temperature
 * mean "the default".
 */
import { MAX_MODEL_NAME_LENGTH, MAX_ROOM_NAME_LENGTH, MAX_TEMPERATURE, MIN_TEMPERATURE } from "@/shared/constants";
import type { CreateRoomBody, RoomSettings, UpdateRoomBody } from "@/shared/protocol";

const MODEL_PATTERN = /^[\w.:/@-]+$/;

export interface SettingsDraft {
  name: string;
  systemPrompt: string;
  model: string;
  temperature: string;
}

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

/** Whether any field holds something the server would refuse. */
export const draftInvalid = (draft: SettingsDraft) =>
  validateRoomName(draft.name) !== null ||
  validateModel(draft.model) !== null ||
  validateTemperature(draft.temperature) !== null;

/** The form's fields for settings as stored. */
export function draftOf(settings: RoomSettings): SettingsDraft {
  return {
    name: settings.name,
    systemPrompt: settings.systemPrompt,
    model: settings.model ?? "",
    temperature: settings.temperature === null ? "" : String(settings.temperature)
  };
}

/** A new room's body: only what was filled in, so the rest takes the defaults. */
export function newRoomBody(draft: SettingsDraft): CreateRoomBody {
  return {
    name: draft.name.trim(),
    ...(draft.systemPrompt.trim() ? { systemPrompt: draft.systemPrompt } : {}),
    ...(draft.model.trim() ? { model: draft.model.trim() } : {}),
    ...(draft.temperature.trim() ? { temperature: Number(draft.temperature) } : {})
  };
}

/** What changed against the settings the form started from; empty when nothing did. */
export function settingsPatch(base: RoomSettings, draft: SettingsDraft): UpdateRoomBody {
  const patch: UpdateRoomBody = {};
  if (draft.name.trim() !== base.name) patch.name = draft.name.trim();
  if (draft.systemPrompt !== base.systemPrompt) patch.systemPrompt = draft.systemPrompt;
  const model = draft.model.trim() || null;
  if (model !== base.model) patch.model = model;
  const temperature = draft.temperature.trim() === "" ? null : Number(draft.temperature);
  if (temperature !== base.temperature) patch.temperature = temperature;
  return patch;
}
