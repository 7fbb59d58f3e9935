// The production Worker, unchanged: tests exercise exactly what ships.
export { AuthKeeper, ChatRoom, default, OverseerAgent, PersonaAgent, TaskAgent } from "../../src/server/index";
