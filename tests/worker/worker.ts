// The production Worker, unchanged: tests exercise exactly what ships.
export { default, OverseerAgent, ChatRoom } from "../../src/server/index";
