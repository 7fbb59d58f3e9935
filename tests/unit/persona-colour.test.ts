import { describe, expect, it } from "vitest";
import { contrast, luminance, paletteColourFor, readablePersonaColour } from "@/client/lib/persona-colour";
import { PERSONA_PALETTE } from "@/shared/personas";

const rgb = (hex: string): [number, number, number] => {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};
const WHITE = luminance([255, 255, 255]);
/** The dark theme's background, oklch(0.17 0.005 285.8), and a hovered row a little lighter. */
const DARK = luminance([0x0e, 0x0e, 0x11]);
const DARK_HOVER = luminance([0x27, 0x27, 0x2a]);

describe("readablePersonaColour", () => {
  it("gives every palette colour and any picked colour 4.5:1 on both themes", () => {
    for (const colour of [...PERSONA_PALETTE, "#ffff00", "#0000ff", "#777777", "#00ffcc", "#1a1a1a"]) {
      const light = readablePersonaColour(colour, "light");
      const dark = readablePersonaColour(colour, "dark");
      expect(contrast(luminance(rgb(light)), WHITE), `${colour} on light`).toBeGreaterThanOrEqual(4.5);
      expect(contrast(luminance(rgb(dark)), DARK), `${colour} on dark`).toBeGreaterThanOrEqual(4.5);
      expect(contrast(luminance(rgb(dark)), DARK_HOVER), `${colour} on a dark hovered row`).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("keeps a colour that already reads, and lightens Ada's blue on the dark theme", () => {
    expect(readablePersonaColour("#2563eb", "light")).toBe("#2563eb");
    // #2563eb on the dark background was 3.7:1.
    expect(contrast(luminance(rgb("#2563eb")), DARK)).toBeLessThan(4.5);
    const dark = readablePersonaColour("#2563eb", "dark");
    expect(dark).not.toBe("#2563eb");
    expect(rgb(dark)[2]).toBeGreaterThan(rgb(dark)[0]); // still blue
  });
});

describe("paletteColourFor", () => {
  it("gives a persona the roster does not know a palette colour from its name, the same every time", () => {
    expect(PERSONA_PALETTE).toContain(paletteColourFor("Ada"));
    expect(paletteColourFor("Ada")).toBe(paletteColourFor("ada"));
    const names = ["Ada", "Grace", "Linus", "Barbara", "Edsger", "Margaret"];
    expect(new Set(names.map(paletteColourFor)).size).toBeGreaterThan(2);
  });
});
