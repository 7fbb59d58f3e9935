/**
 * Images in Markdown are not fetched until someone asks: a remote image is
 * a request to whoever wrote its URL (a tracking pixel learns who read the
 * room, and when). Until clicked it shows its alt text and host; after,
 * it loads without a referrer. `data:` images involve no request.
 */
import { ImageIcon } from "lucide-react";
import { type ComponentProps, useState } from "react";

function remoteHost(src: string): string | null {
  try {
    const url = new URL(src, window.location.href);
    if (url.protocol === "data:" || url.protocol === "blob:") return null;
    return url.host;
  } catch {
    return "an unknown address";
  }
}

export function RemoteImage({ src, alt, node: _node, ...rest }: ComponentProps<"img"> & { node?: unknown }) {
  const [shown, setShown] = useState(false);
  if (typeof src !== "string" || !src) return null;
  const host = remoteHost(src);
  if (host === null || shown) {
    return <img {...rest} src={src} alt={alt ?? ""} referrerPolicy="no-referrer" loading="lazy" />;
  }
  return (
    <button
      type="button"
      onClick={() => setShown(true)}
      className="my-1 inline-flex max-w-full cursor-pointer items-center gap-2 rounded-lg border border-dashed border-edge-strong px-3 py-2 text-left text-sm text-fg-soft hover:bg-surface-soft"
      aria-label={`Load image${alt ? ` “${alt}”` : ""} from ${host}`}
      data-remote-image={src}
    >
      <ImageIcon className="size-4 shrink-0" aria-hidden="true" />
      <span className="min-w-0 truncate">
        {alt ? `${alt} · ` : ""}Load image from {host}
      </span>
    </button>
  );
}
