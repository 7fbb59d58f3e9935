import { useCallback, useState } from "react";
import { errorMessage } from "@/client/lib/api";

/**
 * A form's one request at a time: `pending` while it runs, and its failure
 * kept as the server's message (lib/api.ts) for the form to show. The action
 * does what success means itself (close, navigate).
 */
export function usePendingAction() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<void>) => {
    setPending(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setPending(false);
    }
  }, []);
  return { pending, error, run };
}
