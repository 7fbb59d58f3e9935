import { describe, expect, it } from "vitest";
import { distinctRoomName } from "@/server/domain/transfer/room-names";
import { MAX_ROOM_NAME_LENGTH } from "@/shared/constants";

describe("distinctRoomName", () => {
  it("keeps an imported room's name when no room has it, and tells it apart when one does", () => {
    expect(distinctRoomName("Trip planning", "imported", new Set(["Other"]))).toBe("Trip planning");
    const taken = new Set(["Trip planning"]);
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      const name = distinctRoomName("Trip planning", "imported", taken);
      names.push(name);
      taken.add(name);
    }
    expect(names).toEqual(["Trip planning (imported)", "Trip planning (imported 2)", "Trip planning (imported 3)"]);
  });

  it("names a copy of a copy after the original", () => {
    const taken = new Set(["Trip planning", "Trip planning (imported)"]);
    expect(distinctRoomName("Trip planning (imported)", "imported", taken)).toBe("Trip planning (imported 2)");
    expect(distinctRoomName("Design (fork)", "fork", new Set(["Design", "Design (fork)"]))).toBe("Design (fork 2)");
  });

  it("always marks a fork, numbered when the plain fork name is taken", () => {
    expect(distinctRoomName("Design", "fork", new Set(["Design"]))).toBe("Design (fork)");
    expect(distinctRoomName("Design", "fork", new Set(["Design", "Design (fork)"]))).toBe("Design (fork 2)");
  });

  it("fits the name limit, cutting the base name and never the suffix", () => {
    const long = "x".repeat(MAX_ROOM_NAME_LENGTH);
    const name = distinctRoomName(long, "imported", new Set([long]));
    expect(name).toHaveLength(MAX_ROOM_NAME_LENGTH);
    expect(name.endsWith(" (imported)")).toBe(true);
    expect(distinctRoomName(long, "fork", new Set()).length).toBeLessThanOrEqual(MAX_ROOM_NAME_LENGTH);
  });
});
