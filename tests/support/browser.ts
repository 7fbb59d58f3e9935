/**
 * Headless Chromium (Debian's, driven by `playwright-core`), as the browser
 * tests and the benchmarks launch it.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const CHROMIUM_CANDIDATES = [
  process.env.CHROMIUM_PATH,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome"
];

/** Where Chromium is, or undefined on a machine without one. */
export function findChromium(): string | undefined {
  return CHROMIUM_CANDIDATES.find((p): p is string => !!p && existsSync(p));
}

export const NO_CHROMIUM = "No Chromium found: apt-get install -y chromium, or set CHROMIUM_PATH.";

export async function launchBrowser(): Promise<Browser> {
  const executablePath = findChromium();
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
