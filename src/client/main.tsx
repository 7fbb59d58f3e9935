import "./lib/early-room-list";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { App } from "./App";
import { AuthGate } from "./components/AuthGate";
import "./styles.css";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
  <BrowserRouter>
    <AuthGate>
      <App />
    </AuthGate>
  </BrowserRouter>
);
