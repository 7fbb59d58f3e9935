// The production Worker, unchanged: tests exercise exactly what ships.
export {
  AuthKeeper,
  ChatRoom,
  default,
  LimitKeeper,
  OverseerAgent,
  PersonaAgent,
  TaskAgent
} from "../../src/server/index";
