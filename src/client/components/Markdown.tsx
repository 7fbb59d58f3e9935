/**
 * Assistant Markdown. Loaded lazily (the parser is the biggest part of the
 * client), and the syntax highlighter (Shiki) only once a message actually
 * contains a code fence.
 *
 * Safety: Streamdown sanitises its output (rehype-sanitize + rehype-harden).
 * On top of that, raw HTML in model output is shown as literal text, the
 * way chat apps usually do, rather than being parsed at all, and remote
 * images wait for a click (RemoteImage.tsx).
 */
import type { CodeHighlighterPlugin } from "@streamdown/code";
import { useEffect, useMemo, useState } from "react";
import { type Components, type ControlsConfig, defaultRemarkPlugins, Streamdown } from "streamdown";
import { warmingHighlighter } from "@/client/lib/warm-highlighter";
import { RemoteImage } from "./RemoteImage";

type MdNode = { type: string; value?: string; children?: MdNode[] };

/** remark plugin: `html` nodes become plain `text` nodes. */
function remarkHtmlAsText() {
  const walk = (node: MdNode) => {
    if (node.type === "html") node.type = "text";
    node.children?.forEach(walk);
  };
  return (tree: MdNode) => walk(tree);
}

const remarkPlugins = [...Object.values(defaultRemarkPlugins), remarkHtmlAsText];
const controls: ControlsConfig = { code: true, table: true, mermaid: false };
const shikiTheme: ["github-light", "github-dark"] = ["github-light", "github-dark"];
const components: Components = { img: RemoteImage };

let codePlugin: CodeHighlighterPlugin | null = null;
let codePluginPromise: Promise<CodeHighlighterPlugin> | null = null;

function loadCodePlugin(): Promise<CodeHighlighterPlugin> {
  codePluginPromise ??= import("@streamdown/code").then(
    // Warmed, or a busy CPU leaves a language's first block in one colour (warm-highlighter.ts).
    (m) => (codePlugin = warmingHighlighter(m.code)),
    (error: unknown) => {
      // A chunk that failed to load (a deploy replaced it, the network dropped)
      // is asked for again by the next code block, not given up on for the page's life.
      codePluginPromise = null;
      throw error;
    }
  );
  return codePluginPromise;
}

/** Tries to load the highlighter a message makes before showing its code plain for good. */
const CODE_PLUGIN_TRIES = 3;
const CODE_PLUGIN_RETRY_MS = 2_000;

function useCodePlugin(needed: boolean): CodeHighlighterPlugin | null {
  const [plugin, setPlugin] = useState(codePlugin);
  const [tries, setTries] = useState(0);
  useEffect(() => {
    if (!needed || plugin || tries >= CODE_PLUGIN_TRIES) return;
    let live = true;
    let retry: ReturnType<typeof setTimeout> | undefined;
    loadCodePlugin().then(
      (p) => live && setPlugin(p),
      (error: unknown) => {
        console.warn("[rooms] code highlighting unavailable:", error);
        if (live) retry = setTimeout(() => setTries((n) => n + 1), CODE_PLUGIN_RETRY_MS);
      }
    );
    return () => {
      live = false;
      clearTimeout(retry);
    };
  }, [needed, plugin, tries]);
  return plugin;
}

export default function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  const code = useCodePlugin(text.includes("```") || text.includes("~~~"));
  const plugins = useMemo(() => (code ? { code } : undefined), [code]);
  return (
    <Streamdown
      className="markdown"
      isAnimating={streaming}
      // Completing unterminated Markdown is for partial text only; a finished
      // answer is rendered exactly as written.
      parseIncompleteMarkdown={streaming}
      caret={streaming ? "block" : undefined}
      plugins={plugins}
      remarkPlugins={remarkPlugins}
      controls={controls}
      shikiTheme={shikiTheme}
      components={components}
    >
      {text}
    </Streamdown>
  );
}
