import { Check, Copy } from "lucide-react";
import { useEffect, useState } from "react";
import { IconButton } from "./ui/Button";

export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Older browsers / insecure contexts.
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}

export function CopyButton({ text, label = "Copy message" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1_500);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <IconButton
      size="sm"
      label={copied ? "Copied" : label}
      onClick={() => {
        copyText(text).then(
          () => setCopied(true),
          () => setCopied(false)
        );
      }}
    >
      {copied ? <Check className="text-success" /> : <Copy />}
    </IconButton>
  );
}
