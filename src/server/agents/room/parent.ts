/**
 * How a room's facets (PersonaAgent, TaskAgent) name their parent. The room
 * imports its facet classes to spawn them; if the facets imported the room
 * class back, the agent modules would form an import cycle. `parentAgent()`
 * only compares the class's name with the parent the framework recorded for
 * the facet (agents 0.32, documented on `parentAgent`), so the facets pass a
 * reference that carries the name and the room's type, and no module value.
 */
import type { DynamicAgentClass } from "agents";
import type { ChatRoom } from "../chat-room";

export const CHAT_ROOM_PARENT = { name: "ChatRoom" } as unknown as DynamicAgentClass<ChatRoom>;
