/**
 * A model, traced: one span per provider request, with its time to first
 * token, its provider-reported usage and its error code, and the span's own
 * W3C `traceparent` sent upstream. Where the span is kept is the caller's
 * business (the room's store, or a facet reporting to its room), so the
 * room's turns and its persona and task facets trace their model calls the
 * same way.
 */

import type { LanguageModelV4Middleware, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { type LanguageModel, wrapLanguageModel } from "ai";
import { modelErrorCode } from "@/server/domain/turns/model-errors";
import type { AnswerErrorCode } from "@/shared/errors";

export interface ModelSpanEnd {
  status: "ok" | "error";
  errorCode: AnswerErrorCode | null;
  inputTokens: number | null;
  outputTokens: number | null;
  firstTokenAt: number | null;
}

export interface ModelSpanSink {
  /** A request starts: record its span, answer its id and the `traceparent` to send upstream. */
  start(name: string, modelId: string): { spanId: string; traceparent: string };
  end(spanId: string, end: ModelSpanEnd): void;
}

export function tracedModel(model: LanguageModel, modelId: string, sink: ModelSpanSink, name = `chat ${modelId}`) {
  if (typeof model === "string") return model;
  const middleware: LanguageModelV4Middleware = {
    specificationVersion: "v4",
    wrapStream: async ({ doStream, params }) => {
      const { spanId, traceparent } = sink.start(name, modelId);
      // The span's own id goes upstream, so a provider that records traces
      // joins this one. Params are rebuilt per request, so the header
      // belongs to this request only.
      params.headers = { ...params.headers, traceparent };
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await doStream();
      } catch (error) {
        sink.end(spanId, {
          status: "error",
          errorCode: modelErrorCode(error),
          inputTokens: null,
          outputTokens: null,
          firstTokenAt: null
        });
        throw error;
      }
      let firstTokenAt: number | null = null;
      let usage: { input: number | null; output: number | null } = { input: null, output: null };
      let errorCode: AnswerErrorCode | null = null;
      const watch = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform: (part, controller) => {
          if (
            firstTokenAt === null &&
            (part.type === "text-delta" || part.type === "reasoning-delta" || part.type === "tool-call")
          ) {
            firstTokenAt = Date.now();
          } else if (part.type === "finish") {
            usage = { input: part.usage.inputTokens.total ?? null, output: part.usage.outputTokens.total ?? null };
          } else if (part.type === "error") {
            errorCode = modelErrorCode(part.error);
          }
          controller.enqueue(part);
        },
        flush: () => {
          sink.end(spanId, {
            status: errorCode ? "error" : "ok",
            errorCode,
            inputTokens: usage.input,
            outputTokens: usage.output,
            firstTokenAt
          });
        }
      });
      return { ...result, stream: result.stream.pipeThrough(watch) };
    }
  };
  return wrapLanguageModel({ model, middleware });
}
