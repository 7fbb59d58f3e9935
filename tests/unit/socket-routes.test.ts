import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  LIST_TAG,
  MAX_TAG_LENGTH,
  type PathStep,
  routeTag,
  type SubAgentMatch,
  stepsBelow,
  targetSteps
} from "@/server/domain/sockets/socket-tags";

/** The framework's `/sub/<class>/<name>` reading (agents 0.32 parseSubAgentPath), for the classes a test knows. */
function parseSub(url: string): SubAgentMatch | null {
  const classes: Record<string, string> = { "chat-room": "ChatRoom", "overseer-agent": "OverseerAgent" };
  const parts = new URL(url).pathname.split("/").filter(Boolean);
  for (let i = 0; i + 2 < parts.length; i++) {
    if (parts[i] !== "sub" || !classes[parts[i + 1]]) continue;
    const rest = parts.slice(i + 3);
    return {
      childClass: classes[parts[i + 1]],
      childName: decodeURIComponent(parts[i + 2]),
      remainingPath: rest.length ? `/${rest.join("/")}` : "/"
    };
  }
  return null;
}

const root: PathStep[] = [{ className: "OverseerAgent", name: "ws" }];
const room = (name: string): PathStep => ({ className: "ChatRoom", name });

describe("socket route tags", () => {
  it("name a room socket's exact target below the workspace", () => {
    const steps = targetSteps("http://h/agents/overseer-agent/ws/sub/chat-room/r1?_pk=abc", parseSub);
    expect(steps).toEqual([room("r1")]);
    expect(routeTag(steps ?? [])).toBe("to:ChatRoom/r1");
  });

  it("give a frame's owner path the same tag as its sockets", () => {
    const owner = stepsBelow(root, [...root, room("r1")]);
    const socket = targetSteps("http://h/agents/overseer-agent/ws/sub/chat-room/r1", parseSub);
    expect(owner).not.toBeNull();
    expect(routeTag(owner ?? [])).toBe(routeTag(socket ?? []));
  });

  it("read a socket to the workspace itself as no steps (a list socket, tagged LIST_TAG by the overseer)", () => {
    expect(targetSteps("http://h/agents/overseer-agent/ws?_pk=1", parseSub)).toEqual([]);
    expect(routeTag([])).toBeNull();
    expect(LIST_TAG.startsWith("to:")).toBe(false);
  });

  it("give a nested path a tag of its own, never its parent's", () => {
    const nested = targetSteps("http://h/agents/overseer-agent/ws/sub/chat-room/r1/sub/chat-room/r2", parseSub);
    expect(nested).toEqual([room("r1"), room("r2")]);
    expect(routeTag(nested ?? [])).not.toBe(routeTag([room("r1")]));
  });

  it("never give two different paths the same tag, whatever the names hold", () => {
    const name = fc.string({ maxLength: 12 });
    const path = fc.array(fc.record({ className: fc.constantFrom("ChatRoom", "Other"), name }), {
      minLength: 1,
      maxLength: 3
    });
    fc.assert(
      fc.property(path, path, (a, b) => {
        const [ta, tb] = [routeTag(a), routeTag(b)];
        fc.pre(ta !== null && tb !== null);
        expect(ta === tb).toBe(JSON.stringify(a) === JSON.stringify(b));
      })
    );
  });

  it("refuse a tag longer than the platform allows", () => {
    expect(routeTag([room("x".repeat(MAX_TAG_LENGTH))])).toBeNull();
    const fits = routeTag([room("x".repeat(MAX_TAG_LENGTH - "to:ChatRoom/".length))]);
    expect(fits?.length).toBe(MAX_TAG_LENGTH);
  });

  it("take no tag for an owner outside the workspace or the workspace itself", () => {
    expect(stepsBelow(root, [{ className: "OverseerAgent", name: "other" }, room("r1")])).toBeNull();
    expect(stepsBelow(root, root)).toBeNull();
    expect(stepsBelow(root, [room("r1")])).toBeNull();
  });

  it("answer null for a URL that cannot be read", () => {
    expect(targetSteps("not a url", parseSub)).toBeNull();
  });
});
