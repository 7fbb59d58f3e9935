// The production Worker, unchanged: tests exercise exactly what ships.
export { ChatRoom, default, OverseerAgent, PersonaAgent } from "../../src/server/index";
