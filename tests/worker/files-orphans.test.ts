/**
 * Bytes a Worker wrote to R2 that no room ever recorded: an upload whose
 * Worker died between storing the bytes and the room's record, a `.zip`
 * import whose Worker died before its room was made. The overseer keeps each
 * such write open until it is settled; past its deadline a sweep purges it.
 * The tests play the dead Worker: they take the ticket and write the bytes,
 * then never finish, and move the sweep's clock past the deadline.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { UPLOAD_DEADLINE_MS, ZIP_IMPORT_DEADLINE_MS } from "@/server/agents/overseer/open-writes";
import type { OverseerAgent } from "@/server/agents/overseer-agent";
import { unwrap } from "@/server/app-error";
import type { Caller } from "@/server/domain/access/caller";
import { roomPrefix } from "@/server/domain/files/file-limits";
import { fileForm } from "../support/files";
import { waitFor } from "../support/wait";
import { BASE, createRoom, uniqueName } from "./helpers";

const caller = (address: string): Caller => ({
  identity: { id: "api", name: "API", kind: "api" },
  address,
  admin: true
});

function overseer(ws: string) {
  return env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
}

async function keysUnder(prefix: string): Promise<string[]> {
  return (await env.FILES.list({ prefix })).objects.map((o) => o.key);
}

/** What the overseer still tracks: writes open and purges pending. */
function tracked(ws: string, roomId: string) {
  return runInDurableObject(overseer(ws), (o: OverseerAgent) => {
    const { open, purges } = o.fileFootprint(roomId);
    return { open, purges };
  });
}

describe("bytes no room recorded", () => {
  it("an upload's bytes whose record never came are purged at the deadline, and a late record is refused", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const who = caller(uniqueName());
    const ticket = await runInDurableObject(overseer(ws), async (o: OverseerAgent) =>
      unwrap(await o.admitUpload(room.id, who))
    );
    await env.FILES.put(ticket.key, "bytes of an upload whose Worker died");
    expect(await keysUnder(ticket.key)).toEqual([ticket.key]);
    expect((await tracked(ws, room.id)).open).toEqual([ticket.key]);

    // Before the deadline the sweep leaves it alone.
    await runInDurableObject(overseer(ws), (o: OverseerAgent) => o.sweepOpenWrites());
    expect((await tracked(ws, room.id)).open).toEqual([ticket.key]);

    await runInDurableObject(overseer(ws), (o: OverseerAgent) =>
      o.sweepOpenWrites(Date.now() + UPLOAD_DEADLINE_MS + 1)
    );
    await waitFor(
      () => keysUnder(ticket.key),
      (keys) => keys.length === 0,
      10_000,
      "the orphan purged"
    );
    await waitFor(
      () => tracked(ws, room.id),
      (t) => t.open.length === 0 && t.purges.length === 0,
      10_000,
      "nothing tracked"
    );

    // The Worker comes back after all: the room refuses to record bytes that are gone.
    const late = await runInDurableObject(overseer(ws), (o: OverseerAgent) =>
      o.registerFile(
        room.id,
        {
          id: ticket.fileId,
          name: "late.txt",
          contentType: "text/plain",
          kind: "text",
          size: 10,
          sha256: "0".repeat(64),
          author: { id: "api", name: "API" }
        },
        who
      )
    );
    expect(late).toMatchObject({ ok: false, error: { code: "conflict:file", status: 409 } });
  });

  it("a finished upload leaves nothing open, and its bytes survive a sweep past every deadline", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const response = await exports.default.fetch(
      new Request(`${BASE}/api/workspaces/${ws}/rooms/${room.id}/files`, {
        method: "POST",
        body: fileForm("kept", "kept.txt")
      })
    );
    expect(response.status, await response.clone().text()).toBe(201);
    expect((await tracked(ws, room.id)).open).toEqual([]);
    await runInDurableObject(overseer(ws), (o: OverseerAgent) =>
      o.sweepOpenWrites(Date.now() + ZIP_IMPORT_DEADLINE_MS + 1)
    );
    expect(await keysUnder(roomPrefix(ws, room.id))).toHaveLength(1);
  });

  it("a .zip import's room prefix is purged when the import never finished", async () => {
    const ws = uniqueName();
    await createRoom(ws);
    const ticket = await runInDurableObject(overseer(ws), async (o: OverseerAgent) =>
      unwrap(await o.admitZipImport(caller(uniqueName())))
    );
    const prefix = roomPrefix(ws, ticket.roomId);
    await env.FILES.put(`${prefix}import.zip`, "a spooled archive");
    await env.FILES.put(`${prefix}some-file`, "a restored file");
    expect(await keysUnder(prefix)).toHaveLength(2);
    await runInDurableObject(overseer(ws), (o: OverseerAgent) =>
      o.sweepOpenWrites(Date.now() + ZIP_IMPORT_DEADLINE_MS + 1)
    );
    await waitFor(
      () => keysUnder(prefix),
      (keys) => keys.length === 0,
      10_000,
      "the import's bytes purged"
    );
    expect((await tracked(ws, ticket.roomId)).open).toEqual([]);
  });
});
