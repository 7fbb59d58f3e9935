import "./lib/early-room-list";
import { lazy, Suspense } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { App } from "./App";
import { AuthGate } from "./components/AuthGate";
import { retryingImport } from "./lib/retrying-import";
import { shareToken } from "./lib/routes";
import "./styles.css";

/** A share link's read-only viewer: its own chunk, outside the sign-in gate and the app. */
const ShareViewerPage = lazy(
  retryingImport(() => import("./components/ShareViewer").then((m) => ({ default: m.ShareViewerPage })))
);

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
const token = shareToken(window.location.pathname);
createRoot(root).render(
  <BrowserRouter>
    {token ? (
      <Suspense fallback={null}>
        <ShareViewerPage token={token} />
      </Suspense>
    ) : (
      <AuthGate>
        <App />
      </AuthGate>
    )}
  </BrowserRouter>
);
