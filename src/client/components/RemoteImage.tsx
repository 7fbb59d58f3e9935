/**
 * Images in Markdown are never fetched by the page: a remote image is a
 * request to whoever wrote its URL (a tracking pixel learns who read the
 * room, and when), and the page's Content-Security-Policy allows images
 * only from our own origin (server/http/security-headers.ts), so the
 * browser would refuse it anyway. Instead it shows its alt text and host,
 * and a click opens the image in a tab of its own, without a referrer or
 * an opener: the person chose to visit that host, and the room's page
 * stays out of it. `data:` and `blob:` images involve no request and show
 * in place. Anything but http(s) is not opened at all.
 */
import { ExternalLink, ImageIcon } from "lucide-react";
import type { ComponentProps } from "react";

type Source = { kind: "inline" } | { kind: "remote"; url: string; host: string } | { kind: "unusable" };

function sourceOf(src: string): Source {
  try {
    const url = new URL(src, window.location.href);
    if (url.protocol === "data:" || url.protocol === "blob:") return { kind: "inline" };
    if (url.protocol === "https:" || url.protocol === "http:") return { kind: "remote", url: url.href, host: url.host };
  } catch {
    // not a URL at all
  }
  return { kind: "unusable" };
}

const chip =
  "my-1 inline-flex max-w-full items-center gap-2 rounded-lg border border-dashed border-edge-strong px-3 py-2 text-left text-sm text-fg-soft";

export function RemoteImage({ src, alt, node: _node, ...rest }: ComponentProps<"img"> & { node?: unknown }) {
  if (typeof src !== "string" || !src) return null;
  const source = sourceOf(src);
  if (source.kind === "inline") return <img {...rest} src={src} alt={alt ?? ""} loading="lazy" />;
  if (source.kind === "unusable") {
    return (
      <span className={chip}>
        <ImageIcon className="size-4 shrink-0" aria-hidden="true" />
        <span className="min-w-0 truncate">{alt || "An image that cannot be shown"}</span>
      </span>
    );
  }
  return (
    <a
      href={source.url}
      target="_blank"
      rel="noopener noreferrer"
      referrerPolicy="no-referrer"
      className={`${chip} cursor-pointer no-underline hover:bg-surface-soft`}
      aria-label={`Open image${alt ? ` “${alt}”` : ""} from ${source.host} in a new tab`}
      data-remote-image={source.url}
    >
      <ImageIcon className="size-4 shrink-0" aria-hidden="true" />
      <span className="min-w-0 truncate">
        {alt ? `${alt} · ` : ""}Open image from {source.host}
      </span>
      <ExternalLink className="size-3.5 shrink-0" aria-hidden="true" />
    </a>
  );
}
