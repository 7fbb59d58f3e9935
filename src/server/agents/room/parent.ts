/**
 * How a room's facets (PersonaAgent, TaskAgent) name their parent. The room
 * imports its facet classes to spawn them; if the facets imported the room
 * class back, even for its type, the agent modules would form an import
 * circle. `parentAgent()` only compares the class's name with the parent the
 * framework recorded for the facet (agents 0.32, documented on
 * `parentAgent`), so the facets pass a reference that carries the name, and
 * the type of what they call on the room (contracts/room-api.ts).
 */
import type { Agent, DynamicAgentClass } from "agents";
import type { RoomParentApi } from "@/server/contracts/room-api";

export const CHAT_ROOM_PARENT = { name: "ChatRoom" } as unknown as DynamicAgentClass<Agent & RoomParentApi>;
