import { describe, expect, it } from "vitest";
import {
  draftInvalid,
  draftOf,
  newRoomBody,
  settingsPatch,
  validateModel,
  validateRoomName,
  validateTemperature
} from "../../src/client/lib/room-settings";
import { MAX_MODEL_NAME_LENGTH, MAX_ROOM_NAME_LENGTH, MAX_TEMPERATURE } from "../../src/shared/constants";
import type { RoomSettings } from "../../src/shared/protocol";

const stored: RoomSettings = { name: "Trips", systemPrompt: "Be brief.", model: null, temperature: 0.7 };

describe("room settings form", () => {
  it("asks for a name of at most the server's length, ignoring the spaces around it", () => {
    expect(validateRoomName("   ")).toBe("Give the room a name.");
    expect(validateRoomName(` ${"a".repeat(MAX_ROOM_NAME_LENGTH)} `)).toBeNull();
    expect(validateRoomName("a".repeat(MAX_ROOM_NAME_LENGTH + 1))).toMatch(/at most/);
  });

  it("takes an empty model or temperature as the default and refuses what the server would", () => {
    expect(validateModel("")).toBeNull();
    expect(validateModel("openai/gpt-4o-mini:latest")).toBeNull();
    expect(validateModel("gpt 4")).toMatch(/only/);
    expect(validateModel("m".repeat(MAX_MODEL_NAME_LENGTH + 1))).toMatch(/at most/);
    expect(validateTemperature(" ")).toBeNull();
    expect(validateTemperature(String(MAX_TEMPERATURE))).toBeNull();
    expect(validateTemperature(String(MAX_TEMPERATURE + 0.1))).toMatch(/Between/);
    expect(validateTemperature("warm")).toMatch(/Between/);
    expect(draftInvalid({ ...draftOf(stored), temperature: "warm" })).toBe(true);
    expect(draftInvalid(draftOf(stored))).toBe(false);
  });

  it("sends a new room only the fields filled in", () => {
    expect(newRoomBody({ name: " Trips ", systemPrompt: "  ", model: "", temperature: "" })).toEqual({ name: "Trips" });
    expect(newRoomBody({ name: "Trips", systemPrompt: "Be brief.", model: " m1 ", temperature: "0" })).toEqual({
      name: "Trips",
      systemPrompt: "Be brief.",
      model: "m1",
      temperature: 0
    });
  });

  it("patches only what changed from the settings the form opened with, and empty back to the default", () => {
    expect(settingsPatch(stored, draftOf(stored))).toEqual({});
    expect(settingsPatch(stored, { ...draftOf(stored), name: " Trips " })).toEqual({});
    expect(settingsPatch(stored, { ...draftOf(stored), model: "m1", temperature: "" })).toEqual({
      model: "m1",
      temperature: null
    });
    expect(settingsPatch({ ...stored, model: "m1" }, { ...draftOf(stored), model: " " })).toEqual({ model: null });
    expect(settingsPatch(stored, { ...draftOf(stored), systemPrompt: "" })).toEqual({ systemPrompt: "" });
  });
});
