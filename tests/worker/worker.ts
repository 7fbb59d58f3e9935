// The production Worker, unchanged: tests exercise exactly what ships.
export { ChatRoom, default, OverseerAgent } from "../../src/server/index";
