/**
 * Headless Chromium (Debian's, driven by `playwright-core`), as the browser
 * tests and the benchmarks launch it.
 *
 * The browser tests ask for Debian's `chromium-headless-shell` when it is
 * installed: the same engine without the desktop browser around it (what
 * Playwright itself runs headless). The browser layer is bound by the CPU of
 * two cores, and the shell spends much less of it per page. It has no PDF
 * viewer and refuses desktop notifications, so a test of those asks for the
 * full browser; so do the benchmarks, whose published figures are the full
 * browser's.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const FULL_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
const SHELL_CANDIDATES = ["/usr/bin/chromium-headless-shell", ...FULL_CANDIDATES];

export type BrowserKind = "full" | "shell";

/** Where Chromium is (CHROMIUM_PATH first), or undefined on a machine without one. */
export function findChromium(kind: BrowserKind = "full"): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, ...(kind === "shell" ? SHELL_CANDIDATES : FULL_CANDIDATES)];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

export const NO_CHROMIUM = "No Chromium found: apt-get install -y chromium, or set CHROMIUM_PATH.";

export async function launchBrowser(kind: BrowserKind = "full"): Promise<Browser> {
  const executablePath = findChromium(kind);
  if (!executablePath) throw new Error(NO_CHROMIUM);
  return chromium.launch({
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run"
    ]
  });
}
