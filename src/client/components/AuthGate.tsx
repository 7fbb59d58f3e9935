/**
 * With ACCESS_TOKEN set on the server, every API call and socket needs the
 * token: the sign-in page trades it for an HttpOnly cookie
 * (POST /api/session). Without it the app is open and this gate is invisible.
 */
import { KeyRound, LogOut } from "lucide-react";
import { createContext, type FormEvent, type ReactNode, useCallback, useContext, useEffect, useState } from "react";
import { ApiError, api, errorMessage, UNAUTHORIZED_EVENT } from "../lib/api";
import { Button, IconButton } from "./ui/Button";
import { ErrorNotice, Field, inputClass } from "./ui/Field";
import { Spinner } from "./ui/Spinner";

type Status = "checking" | "open" | "signed-in" | "needs-token";

const AuthContext = createContext<{ authRequired: boolean; signOut: () => void }>({
  authRequired: false,
  signOut: () => {}
});

export function useAuth() {
  return useContext(AuthContext);
}

export function AuthGate({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<Status>("checking");

  useEffect(() => {
    let live = true;
    api.session().then(
      (s) => live && setStatus(!s.authRequired ? "open" : s.authenticated ? "signed-in" : "needs-token"),
      // An older server without /api/session: nothing to sign in to.
      (error: unknown) => live && setStatus(error instanceof ApiError && error.status === 401 ? "needs-token" : "open")
    );
    const onUnauthorized = () => setStatus("needs-token");
    window.addEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
    return () => {
      live = false;
      window.removeEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
    };
  }, []);

  const signOut = useCallback(() => {
    void api.signOut().finally(() => setStatus("needs-token"));
  }, []);

  if (status === "checking") {
    return (
      <div className="flex h-dvh items-center justify-center text-zinc-400" aria-busy="true">
        <Spinner label="Loading" className="opacity-0 [animation:fade-in_200ms_400ms_forwards]" />
      </div>
    );
  }
  if (status === "needs-token") return <SignIn onSignedIn={() => setStatus("signed-in")} />;
  return (
    <AuthContext.Provider value={{ authRequired: status === "signed-in", signOut }}>{children}</AuthContext.Provider>
  );
}

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!token.trim()) return;
    setPending(true);
    setError(null);
    try {
      await api.signIn(token.trim());
      onSignedIn();
    } catch (err) {
      setError(errorMessage(err));
      setPending(false);
    }
  };

  return (
    <main className="flex min-h-dvh items-center justify-center bg-zinc-50 p-4 dark:bg-zinc-950">
      <form
        onSubmit={submit}
        noValidate
        className="w-full max-w-sm animate-pop-in rounded-2xl bg-white p-6 shadow-xl ring-1 ring-zinc-900/5 dark:bg-zinc-900 dark:ring-white/10"
      >
        <div className="mb-5 flex size-11 items-center justify-center rounded-xl bg-gradient-to-br from-indigo-500 to-violet-600 text-white shadow-sm">
          <KeyRound className="size-5" aria-hidden="true" />
        </div>
        <h1 className="text-lg font-semibold tracking-tight text-zinc-900 dark:text-zinc-100">Sign in to Rooms</h1>
        <p className="mt-1 mb-5 text-sm text-zinc-500 dark:text-zinc-400">
          This server is private. Enter the access token you were given.
        </p>
        <Field label="Access token" error={null}>
          {(props) => (
            <input
              {...props}
              type="password"
              autoFocus
              autoComplete="current-password"
              value={token}
              onChange={(e) => setToken(e.target.value)}
              className={inputClass}
            />
          )}
        </Field>
        {error && <ErrorNotice className="mt-3">{error}</ErrorNotice>}
        <Button variant="primary" type="submit" className="mt-5 w-full" disabled={pending || !token.trim()}>
          {pending && <Spinner className="[&_svg]:size-3.5" />}
          Sign in
        </Button>
      </form>
    </main>
  );
}

export function SignOutButton() {
  const { authRequired, signOut } = useAuth();
  if (!authRequired) return null;
  return (
    <IconButton label="Sign out" onClick={signOut}>
      <LogOut />
    </IconButton>
  );
}
