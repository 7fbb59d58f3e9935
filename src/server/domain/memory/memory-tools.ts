/**
 * The assistant's tool for the room's memory: it may propose a pin, which
 * stays out of every context until a member accepts it (people decide what
 * the room remembers). Pure: the proposal is injected.
 */
import { tool, zodSchema } from "ai";
import { z } from "zod";
import { MAX_PIN_LENGTH } from "@/shared/memory";

// Wrapped once, not per turn (see domain/room-tools.ts).
const proposePinInputSchema = zodSchema(
  z.object({
    text: z
      .string()
      .trim()
      .min(1)
      .max(MAX_PIN_LENGTH)
      .describe("The fact, decision or date to keep, in one short sentence (e.g. 'We chose Postgres').")
  })
);

export type ProposePinResult = { proposed: true; pinId: string } | { proposed: false; reason: string };

export function proposePinTool(propose: (text: string) => ProposePinResult) {
  return tool({
    description:
      "Propose pinning a fact, decision or date to this room's memory, so it stays in every later context even " +
      "after the conversation moves on. A member must accept the proposal. Use it sparingly: only for decisions " +
      "and facts the room will need later, and never for something already pinned.",
    inputSchema: proposePinInputSchema,
    execute: async ({ text }): Promise<ProposePinResult> => propose(text)
  });
}
