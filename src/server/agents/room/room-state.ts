/**
 * The room's synced state (settings, usage, the model label, personas),
 * which the framework keeps in the facet's SQLite and pushes to every
 * client: what a new room starts with, and how settings and the provider's
 * configuration change it. Pure functions of the state and the config.
 */
import { EMPTY_USAGE } from "@/server/domain/budgets/token-usage";
import { activeModelId, isOffline, type ModelConfig } from "@/server/model/provider";
import type { RoomSettings, RoomState } from "@/shared/protocol";

const DEFAULT_SETTINGS: RoomSettings = { name: "Untitled room", systemPrompt: "", model: null, temperature: null };

/** Before `initialize`: what the framework holds for a room not yet set up. */
export function initialRoomState(): RoomState {
  return { settings: DEFAULT_SETTINGS, usage: EMPTY_USAGE, activeModel: "", offline: true, personas: [] };
}

/** A new room's state, right after the overseer spawns it. */
export function newRoomState(settings: RoomSettings, config: ModelConfig): RoomState {
  return {
    settings,
    usage: EMPTY_USAGE,
    activeModel: activeModelId(config, settings),
    offline: isOffline(config),
    personas: []
  };
}

/** The state with a settings patch applied, and the model label it implies. */
export function withSettings(state: RoomState, patch: Partial<RoomSettings>, config: ModelConfig): RoomState {
  const settings = { ...state.settings, ...patch };
  return { ...state, settings, activeModel: activeModelId(config, settings) };
}

/**
 * The provider configuration can change between deploys: the model label
 * re-derived on every wake rather than trusting the stored one. Null when
 * nothing changed.
 */
export function withCurrentModel(state: RoomState, config: ModelConfig): RoomState | null {
  const activeModel = activeModelId(config, state.settings);
  if (state.activeModel === activeModel && state.offline === isOffline(config)) return null;
  return { ...state, activeModel, offline: isOffline(config) };
}
