import { Component, lazy, type ReactNode, Suspense } from "react";
import { retryingImport } from "@/client/lib/retrying-import";

// Markdown (parser and highlighter) is its own chunk, loaded on first use.
const Markdown = lazy(retryingImport(() => import("./Markdown")));

export function PlainText({ text }: { text: string }) {
  return <div className="text-[15px] leading-7 break-words whitespace-pre-wrap">{text}</div>;
}

/**
 * If the Markdown chunk cannot be loaded at all (every retry failed), the
 * words are still the message: show them as plain text rather than losing
 * the message to "cannot be shown".
 */
class PlainTextOnError extends Component<{ text: string; children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    return this.state.failed ? <PlainText text={this.props.text} /> : this.props.children;
  }
}

/** A text part of an answer: Markdown once its chunk is here, plain text until then. */
export function MessageText({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <PlainTextOnError text={text}>
      <Suspense fallback={<PlainText text={text} />}>
        <Markdown text={text} streaming={streaming} />
      </Suspense>
    </PlainTextOnError>
  );
}
