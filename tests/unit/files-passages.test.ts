import { describe, expect, it } from "vitest";
import {
  attachedFileIds,
  attachmentsForModel,
  citedSources,
  citeSources,
  passagesSection,
  type RetrievedPassage
} from "@/server/domain/files/file-context";
import { htmlToText, pageText, passageQuery, passagesOfLines } from "@/server/domain/files/text-passages";
import { assembleContext } from "@/server/domain/memory/context-assembly";
import { offlineCitation } from "@/server/model/offline-model";

const passage = (over: Partial<RetrievedPassage> = {}): RetrievedPassage => ({
  passageId: "1",
  fileId: "f_AAAAAAAAAAAAAAAA",
  name: "report.pdf",
  contentType: "application/pdf",
  page: 2,
  text: "The launch moves to March because the supplier is late.",
  ...over
});

describe("documents as passages", () => {
  it("cuts lines into passages that know their lines, keeping paragraphs whole when they can", () => {
    const lines = Array.from({ length: 100 }, (_, i) => (i % 10 === 9 ? "" : `line ${i + 1} ${"x".repeat(60)}`));
    const passages = passagesOfLines(lines);
    expect(passages.length).toBeGreaterThan(3);
    expect(passages[0]).toMatchObject({ lineFrom: 1 });
    for (const p of passages) expect(p.text.length).toBeLessThanOrEqual(1300);
    // Every line lands in exactly one passage, in order.
    expect(passages.map((p) => p.text).join("\n")).toContain("line 99 ");
    for (let i = 1; i < passages.length; i++) expect(passages[i]!.lineFrom).toBeGreaterThan(passages[i - 1]!.lineTo!);
    expect(passagesOfLines(["a", "b"], 1, 7)).toEqual([{ text: "a\nb", page: 7 }]);
  });

  it("reads HTML's visible text and PDF text items", () => {
    expect(htmlToText("<p>Hi &amp; <b>bye</b></p><script>alert(1)</script><style>p{}</style>&#x41;")).toBe(
      "Hi & bye\nA"
    );
    expect(pageText([{ str: "one" }, { str: " two", hasEOL: true }, { str: "three" }])).toBe("one two\nthree");
  });

  it("makes a bounded FTS query of a question's distinctive words, with nothing a person types as syntax", () => {
    expect(passageQuery("What does the report say about the launch?")).toBe('"report" OR "launch"');
    expect(passageQuery('NEAR(a b) OR "x" * -y')).toBe('"near"');
    expect(passageQuery("the and of")).toBeNull();
    const many = passageQuery(Array.from({ length: 50 }, (_, i) => `word${i}`).join(" "));
    expect(many?.split(" OR ")).toHaveLength(12);
  });
});

describe("passages in the model's context and as citations", () => {
  it("numbers passages with their file and place, inside the context budget the memory assembly keeps", () => {
    const section = passagesSection(
      [passage(), passage({ passageId: "2", page: undefined, lineFrom: 3, lineTo: 9, name: "notes.md" })],
      500
    );
    expect(section.items.map((i) => i.text.split("\n")[0])).toEqual([
      "[1] report.pdf, page 2:",
      "[2] notes.md, lines 3–9:"
    ]);
    const context = assembleContext({ budget: 4000, systemPrompt: "Be brief.", sections: [section], history: [] });
    expect(context.system).toContain("[1] report.pdf, page 2:\nThe launch moves to March");
    expect(context.record.passages.map((p) => p.fileId)).toEqual(["f_AAAAAAAAAAAAAAAA", "f_AAAAAAAAAAAAAAAA"]);
  });

  it("cites only the passages an answer names, each once, with where to open them", () => {
    const passages = [passage(), passage({ passageId: "2", page: 5 })];
    const sources = citedSources("As [2] says, and [2] again; see [1]. Not [3].", passages);
    expect(sources.map((s) => s.providerMetadata.rooms)).toEqual([
      { fileId: "f_AAAAAAAAAAAAAAAA", n: 2, page: 5 },
      { fileId: "f_AAAAAAAAAAAAAAAA", n: 1, page: 2 }
    ]);
    expect(sources[0]).toMatchObject({
      type: "source-document",
      title: "report.pdf, page 5",
      mediaType: "application/pdf"
    });
  });

  it("adds the cited sources to an answer's stream just before it finishes", async () => {
    const chunks = [
      { type: "start" },
      { type: "text-delta", delta: "Per [" },
      { type: "text-delta", delta: "1]." },
      { type: "finish" }
    ];
    const out: Array<{ type: string }> = [];
    await new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      }
    })
      .pipeThrough(citeSources([passage()]))
      .pipeTo(new WritableStream({ write: (chunk) => void out.push(chunk as { type: string }) }));
    expect(out.map((c) => c.type)).toEqual(["start", "text-delta", "text-delta", "source-document", "finish"]);
  });

  it("lets the offline model cite the first passage, so the feature works with no key", () => {
    const context = assembleContext({
      budget: 4000,
      systemPrompt: "",
      sections: [passagesSection([passage()], 500)],
      history: []
    });
    const citation = offlineCitation([{ role: "system", content: context.system }]);
    expect(citation).toContain("**report.pdf, page 2** [1]");
    expect(citation).toContain("The launch moves to March");
    expect(offlineCitation([{ role: "system", content: "nothing here" }])).toBeNull();
  });
});

describe("file parts as the model gets them", () => {
  const url = (id: string) => `/api/rooms/r1/files/${id}`;
  const files: Record<
    string,
    {
      id: string;
      name: string;
      contentType: string;
      kind: string;
      size: number;
      pages: number | null;
      state: string;
      firstLine: string | null;
    }
  > = {
    [url("f_IMAGEIMAGEIMAGE1")]: {
      id: "f_IMAGEIMAGEIMAGE1",
      name: "shot.png",
      contentType: "image/png",
      kind: "image",
      size: 3,
      pages: null,
      state: "stored",
      firstLine: null
    },
    [url("f_DOCDOCDOCDOCDOC1")]: {
      id: "f_DOCDOCDOCDOCDOC1",
      name: "plan.pdf",
      contentType: "application/pdf",
      kind: "pdf",
      size: 2048,
      pages: 3,
      state: "indexed",
      firstLine: "Launch plan 2027"
    }
  };
  const message = {
    id: "m1",
    role: "user" as const,
    parts: [
      { type: "text" as const, text: "What is this?" },
      { type: "file" as const, mediaType: "image/png", filename: "shot.png", url: url("f_IMAGEIMAGEIMAGE1") },
      { type: "file" as const, mediaType: "application/pdf", filename: "plan.pdf", url: url("f_DOCDOCDOCDOCDOC1") },
      { type: "file" as const, mediaType: "text/plain", filename: "gone.txt", url: url("f_GONEGONEGONEGON1") }
    ]
  };
  const source = (acceptsImages: boolean) => ({
    describe: (u: string) => files[u] ?? null,
    imageBytes: async () => new Uint8Array([1, 2, 3]),
    acceptsImages
  });

  it("sends images as image input when the model reads them, and names documents by name, pages and first line", async () => {
    const [out] = await attachmentsForModel([message], source(true));
    expect(out!.parts[1]).toEqual({
      type: "file",
      mediaType: "image/png",
      filename: "shot.png",
      url: "data:image/png;base64,AQID"
    });
    expect(out!.parts[2]).toEqual({
      type: "text",
      text: '[Attached: plan.pdf (PDF, 2 KB, 3 pages), which begins: "Launch plan 2027"]'
    });
    expect(out!.parts[3]).toEqual({ type: "text", text: "[Attached: gone.txt, since deleted]" });
  });

  it("describes an image instead when the model does not read images: never a url of ours", async () => {
    const [out] = await attachmentsForModel([message], source(false));
    expect(out!.parts[1]).toEqual({
      type: "text",
      text: "[Attached: shot.png (image, 3 bytes); this model does not read images]"
    });
    expect(JSON.stringify(out)).not.toContain("/api/rooms");
  });

  it("reads the room's file ids from a message's parts", () => {
    expect(attachedFileIds(message, (u) => /f_[A-Z0-9]{16}$/.exec(u)?.[0] ?? null)).toEqual([
      "f_IMAGEIMAGEIMAGE1",
      "f_DOCDOCDOCDOCDOC1",
      "f_GONEGONEGONEGON1"
    ]);
  });
});
