/**
 * A persona's colour as text that reads: the colour a room picked (any
 * colour, from a picker) moved toward black on the light theme or toward
 * white on the dark one until it has 4.5:1 contrast (WCAG AA) with the
 * message background, row hover included. Its hue stays, so @Ada is still
 * blue, and its avatar keeps the colour as picked.
 */
import { PERSONA_PALETTE } from "@/shared/personas";

type Rgb = [number, number, number];

/** Relative luminance of the backgrounds a name sits on, with a margin for the hovered row. */
const BACKGROUND_LUMINANCE = { light: 0.9, dark: 0.03 };
const TARGET_CONTRAST = 4.5;

function parseHex(hex: string): Rgb | null {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) return null;
  const n = Number.parseInt(m[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const toHex = (rgb: Rgb) => `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, "0")).join("")}`;

export function luminance([r, g, b]: Rgb): number {
  const channel = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

export function contrast(a: number, b: number): number {
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

export function readablePersonaColour(hex: string, theme: "light" | "dark"): string {
  const rgb = parseHex(hex);
  if (!rgb) return theme === "dark" ? "#e4e4e7" : "#3f3f46";
  const background = BACKGROUND_LUMINANCE[theme];
  const toward = theme === "dark" ? 255 : 0;
  for (let step = 0; step <= 20; step++) {
    const t = step / 20;
    const mixed = rgb.map((v) => v + (toward - v) * t) as Rgb;
    if (contrast(luminance(mixed), background) >= TARGET_CONTRAST) return toHex(mixed);
  }
  return theme === "dark" ? "#ffffff" : "#000000";
}

/** A colour for a persona the roster does not know (a share viewer, a fork, a deleted persona): from its name. */
export function paletteColourFor(name: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.toLowerCase().charCodeAt(i), 0x01000193);
  return PERSONA_PALETTE[(hash >>> 0) % PERSONA_PALETTE.length];
}
