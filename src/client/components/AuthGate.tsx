/**
 * Everyone in the app is someone: on first visit the browser asks for a
 * name (and the access token, when the server has one) and signs in
 * (POST /api/session), which sets an HttpOnly session cookie sent on every
 * request and socket. Behind Cloudflare Access, Access decides who you are.
 */
import { KeyRound } from "lucide-react";
import { createContext, type FormEvent, type ReactNode, useCallback, useContext, useEffect, useState } from "react";
import { api, errorMessage, UNAUTHORIZED_EVENT } from "@/client/lib/api";
import { prefetchedRooms } from "@/client/lib/room-pages";
import { forgetWarm } from "@/client/lib/warm-rooms";
import { MAX_AUTHOR_LENGTH } from "@/shared/constants";
import { type Identity, normalizeDisplayName, type SignInOptions } from "@/shared/identity";
import { memberNameClash } from "@/shared/names";
import { Button } from "./ui/Button";
import { ErrorNotice, Field, inputClass } from "./ui/Field";
import { Spinner } from "./ui/Spinner";

type Status =
  | { kind: "checking" }
  | { kind: "signed-in"; user: Identity; signIn: SignInOptions }
  | { kind: "signing-in"; signIn: SignInOptions }
  | { kind: "failed"; message: string };

interface Auth {
  user: Identity;
  signIn: SignInOptions;
  signOut: () => void;
  /** PATCH /api/session: same identity, new name. */
  rename: (name: string) => Promise<void>;
}

const AuthContext = createContext<Auth | null>(null);

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error("useAuth outside <AuthGate>");
  return auth;
}

export function AuthGate({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<Status>({ kind: "checking" });

  const check = useCallback(() => {
    api.session().then(
      (s) =>
        setStatus(
          s.user ? { kind: "signed-in", user: s.user, signIn: s.signIn } : { kind: "signing-in", signIn: s.signIn }
        ),
      (error: unknown) => setStatus({ kind: "failed", message: errorMessage(error) })
    );
  }, []);

  useEffect(() => {
    check();
    window.addEventListener(UNAUTHORIZED_EVENT, check);
    return () => window.removeEventListener(UNAUTHORIZED_EVENT, check);
  }, [check]);

  const signIn = status.kind === "signed-in" || status.kind === "signing-in" ? status.signIn : null;
  const signOut = useCallback(() => {
    // Nothing of this person's rooms stays in the tab's memory (lib/warm-rooms.ts, lib/room-pages.ts).
    forgetWarm();
    prefetchedRooms.forget();
    if (signIn?.access) {
      window.location.assign("/cdn-cgi/access/logout");
      return;
    }
    void api.signOut().finally(check);
  }, [signIn?.access, check]);
  const rename = useCallback(async (name: string) => {
    const { user } = await api.rename(name);
    setStatus((s) => (s.kind === "signed-in" ? { ...s, user } : s));
  }, []);

  if (status.kind === "checking") {
    return (
      <div className="flex h-dvh items-center justify-center text-fg-faint" aria-busy="true">
        <Spinner label="Loading" className="opacity-0 [animation:fade-in_200ms_400ms_forwards]" />
      </div>
    );
  }
  if (status.kind === "failed") {
    return (
      <main className="flex min-h-dvh items-center justify-center p-4">
        <div className="max-w-sm text-center">
          <ErrorNotice>{status.message}</ErrorNotice>
          <Button className="mt-4" onClick={check}>
            Try again
          </Button>
        </div>
      </main>
    );
  }
  if (status.kind === "signing-in") {
    return (
      <SignIn
        options={status.signIn}
        onSignedIn={(user) => setStatus({ kind: "signed-in", user, signIn: status.signIn })}
      />
    );
  }
  return (
    <AuthContext.Provider value={{ user: status.user, signIn: status.signIn, signOut, rename }}>
      {children}
    </AuthContext.Provider>
  );
}

/** What is wrong with the typed name: the server refuses reserved names too (shared/names.ts), this says so as you type. */
function nameProblem(normalized: string, tried: boolean): string | null {
  if (!normalized) return tried ? "Enter the name others will see on your messages." : null;
  const clash = memberNameClash(normalized);
  return clash ? `Your name ${clash}.` : null;
}

function SignIn({ options, onSignedIn }: { options: SignInOptions; onSignedIn: (user: Identity) => void }) {
  const [name, setName] = useState("");
  const [token, setToken] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Set by a submit with something missing: the button is never disabled without saying why. */
  const [tried, setTried] = useState(false);
  const normalized = normalizeDisplayName(name);
  const nameError = nameProblem(normalized, tried);
  const tokenError =
    tried && options.tokenRequired && token.trim().length === 0 ? "Enter the access token you were given." : null;
  const ready = normalized.length > 0 && !nameError && (!options.tokenRequired || token.trim().length > 0);

  if (options.access) {
    return (
      <main className="flex min-h-dvh items-center justify-center p-4">
        <ErrorNotice>
          This server is behind Cloudflare Access, which did not identify you. Reload to sign in.
        </ErrorNotice>
      </main>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!ready) {
      setTried(true);
      const form = event.currentTarget as HTMLFormElement;
      requestAnimationFrame(() => form.querySelector<HTMLElement>("[aria-invalid=true]")?.focus());
      return;
    }
    setPending(true);
    setError(null);
    try {
      const { user } = await api.signIn(normalized, options.tokenRequired ? token.trim() : undefined);
      onSignedIn(user);
    } catch (err) {
      setError(errorMessage(err));
      setPending(false);
    }
  };

  return (
    <main className="flex min-h-dvh items-center justify-center bg-canvas p-4">
      <form
        onSubmit={submit}
        noValidate
        aria-label="Sign in"
        className="w-full max-w-sm animate-pop-in rounded-2xl bg-surface p-6 shadow-xl ring-1 ring-hairline/50"
      >
        <div className="mb-5 flex size-11 items-center justify-center rounded-xl bg-brand text-on-fill shadow-sm">
          <KeyRound className="size-5" aria-hidden="true" />
        </div>
        <h1 className="text-lg font-semibold tracking-tight text-fg">Welcome to Rooms</h1>
        <p className="mt-1 mb-5 text-sm text-fg-muted">
          {options.tokenRequired
            ? "This server is private. Choose the name others will see, and enter the access token you were given."
            : "Choose the name others will see on your messages."}
        </p>
        <Field label="Your name" error={nameError}>
          {(props) => (
            <input
              {...props}
              // biome-ignore lint/a11y/noAutofocus: the sign-in page asks for this one thing, so the cursor starts there
              autoFocus
              autoComplete="nickname"
              maxLength={MAX_AUTHOR_LENGTH}
              value={name}
              onChange={(e) => setName(e.target.value)}
              className={inputClass}
            />
          )}
        </Field>
        {options.tokenRequired && (
          <Field label="Access token" error={tokenError} className="mt-3">
            {(props) => (
              <input
                {...props}
                type="password"
                autoComplete="current-password"
                value={token}
                onChange={(e) => setToken(e.target.value)}
                className={inputClass}
              />
            )}
          </Field>
        )}
        {error && <ErrorNotice className="mt-3">{error}</ErrorNotice>}
        <Button variant="primary" type="submit" className="mt-5 w-full" disabled={pending}>
          {pending && <Spinner className="[&_svg]:size-3.5" />}
          Sign in
        </Button>
      </form>
    </main>
  );
}
