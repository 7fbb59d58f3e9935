// The production Worker, unchanged: tests exercise exactly what ships.
export { AuthKeeper, ChatRoom, default, OverseerAgent, PersonaAgent } from "../../src/server/index";
