/**
 * The model settings a room and a persona both choose: system prompt, model
 * name and temperature, with their limits. Their own module, below
 * protocol.ts (rooms) and personas.ts (personas), which both use them and
 * would otherwise import each other.
 */
import { z } from "zod";
import { MAX_MODEL_NAME_LENGTH, MAX_SYSTEM_PROMPT_LENGTH, MAX_TEMPERATURE, MIN_TEMPERATURE } from "./constants";

export const SystemPrompt = z
  .string({ error: "systemPrompt must be a string" })
  .max(MAX_SYSTEM_PROMPT_LENGTH, `systemPrompt must be at most ${MAX_SYSTEM_PROMPT_LENGTH} characters`);

export const ModelName = z
  .string({ error: "model must be a string" })
  .trim()
  .min(1, "model must not be empty")
  .max(MAX_MODEL_NAME_LENGTH, `model must be at most ${MAX_MODEL_NAME_LENGTH} characters`)
  .regex(/^[\w.:/@-]+$/, "model may contain letters, digits and . : / @ _ - only");

export const Temperature = z
  .number({ error: "temperature must be a number" })
  .min(MIN_TEMPERATURE, `temperature must be at least ${MIN_TEMPERATURE}`)
  .max(MAX_TEMPERATURE, `temperature must be at most ${MAX_TEMPERATURE}`);
