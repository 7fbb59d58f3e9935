/**
 * A room or room-list WebSocket from Node (the `ws` package), as a browser
 * or script opens it: records every frame and waits for one loudly (see
 * frame-log.ts). Worker tests use the same frame log over workerd's sockets.
 */
import WebSocket from "ws";
import { createFrameLog, type Frame, type FrameLog } from "./frame-log";

export interface Socket extends Pick<FrameLog, "frames" | "next"> {
  ws: WebSocket;
  send(frame: unknown): void;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export async function openSocket(url: string, headers: Record<string, string> = {}): Promise<Socket> {
  const ws = new WebSocket(url, { headers });
  const log = createFrameLog(15_000);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }))
  );
  ws.on("message", (data, isBinary) => {
    let frame: Frame;
    try {
      frame = JSON.parse(data.toString());
    } catch {
      frame = { raw: data.toString(), isBinary }; // kept for assertions
    }
    log.record(frame);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
  });
  return {
    ws,
    frames: log.frames,
    next: log.next,
    closed,
    send: (frame) => ws.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
    close: () => ws.close()
  };
}
