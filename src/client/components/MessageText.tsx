import { Component, type ComponentType, lazy, type ReactNode, Suspense } from "react";
import { retryingImport } from "@/client/lib/retrying-import";

type MarkdownProps = { text: string; streaming: boolean };

/**
 * Markdown (parser and highlighter) is its own chunk. It starts loading as
 * soon as this module does (with the room view), not when the first answer
 * needs it: loaded on first use, a session's first answer showed its raw
 * Markdown until the chunk arrived. Once here, answers render it directly,
 * without suspending even once.
 */
let loaded: ComponentType<MarkdownProps> | null = null;
const loadMarkdown = retryingImport(() =>
  import("./Markdown").then((m) => {
    loaded = m.default;
    return m;
  })
);
const markdownModule = loadMarkdown();
// A failure shows up in the first answer that renders (plain text, PlainTextOnError).
markdownModule.catch(() => {});
const LazyMarkdown = lazy(() => markdownModule);

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
export function MessageText({ text, streaming }: MarkdownProps) {
  const Markdown = loaded;
  return (
    <PlainTextOnError text={text}>
      {Markdown ? (
        <Markdown text={text} streaming={streaming} />
      ) : (
        <Suspense fallback={<PlainText text={text} />}>
          <LazyMarkdown text={text} streaming={streaming} />
        </Suspense>
      )}
    </PlainTextOnError>
  );
}
