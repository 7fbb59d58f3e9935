/**
 * Whether a room's model reads images: the room's setting (`imageInput`),
 * else the deployment's (`MODEL_ACCEPTS_IMAGES`), else a default per
 * provider: OpenAI's own API (its current models read images) yes; an
 * OpenAI-compatible server elsewhere (often a local text model) and the
 * offline model no. Pure.
 */
import type { RoomSettings } from "@/shared/protocol";

interface ImageInputEnv {
  MODEL_ACCEPTS_IMAGES?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
}

export function acceptsImages(env: ImageInputEnv, settings: Pick<RoomSettings, "imageInput">): boolean {
  if (typeof settings.imageInput === "boolean") return settings.imageInput;
  const configured = env.MODEL_ACCEPTS_IMAGES?.trim().toLowerCase();
  if (configured === "true" || configured === "1") return true;
  if (configured === "false" || configured === "0") return false;
  return Boolean(env.OPENAI_API_KEY) && !env.OPENAI_BASE_URL;
}
