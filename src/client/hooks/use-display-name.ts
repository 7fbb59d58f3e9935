import { useAuth } from "@/client/components/AuthGate";
import { normalizeDisplayName as normalize } from "@/shared/identity";

export function normalizeDisplayName(raw: string): string {
  return normalize(raw);
}

/** The signed-in identity's name, and a way to change it (PATCH /api/session). */
export function useDisplayName(): [string, (name: string) => Promise<void>] {
  const { user, rename } = useAuth();
  return [user.name, rename];
}
