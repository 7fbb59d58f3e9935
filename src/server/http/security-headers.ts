/**
 * Response headers on everything the app serves: the Worker's own responses
 * (this middleware), the built client (public/_headers, which Workers
 * static assets apply; a unit test keeps it equal to these) and the dev and
 * preview servers (vite.config.ts).
 *
 * The policy: scripts and connections only to our own origin, no framing by
 * anyone, no plugins, no <base> tricks. Styles only from our own
 * stylesheets: no `<style>` element and no `style="…"` attribute. React's
 * `style` props (ours, the Markdown renderer's highlighting colours, the
 * virtual list's positions) are set through the CSSOM, which CSP does not
 * govern, so the UI needs no 'unsafe-inline'. Images only from our own
 * origin, `data:` and `blob:` (none of which asks anyone else): a remote
 * image in Markdown is never fetched by the page, which would tell its
 * host who read the room and when; a click opens it in a tab of its own
 * (client/components/RemoteImage.tsx), where this policy does not reach.
 */
import type { MiddlewareHandler } from "hono";

const POLICY: Record<string, string[]> = {
  "default-src": ["'self'"],
  "script-src": ["'self'"],
  "style-src": ["'self'"],
  "img-src": ["'self'", "data:", "blob:"],
  "font-src": ["'self'", "data:"],
  "connect-src": ["'self'"],
  "frame-ancestors": ["'none'"],
  "frame-src": ["'none'"],
  "object-src": ["'none'"],
  "base-uri": ["'none'"],
  "form-action": ["'self'"]
};

function serialise(policy: Record<string, string[]>): string {
  return Object.entries(policy)
    .map(([directive, sources]) => `${directive} ${sources.join(" ")}`)
    .join("; ");
}

export const CONTENT_SECURITY_POLICY = serialise(POLICY);

/**
 * `vite dev` only: Vite and the React plugin inject inline module scripts
 * (the HMR client preamble) and put each CSS module in a `<style>` element,
 * so scripts and styles may also be inline there. The built client has
 * neither (one stylesheet, linked).
 */
const DEV_CONTENT_SECURITY_POLICY = serialise({
  ...POLICY,
  "script-src": ["'self'", "'unsafe-inline'"],
  "style-src": ["'self'", "'unsafe-inline'"]
});

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY"
};

export const DEV_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  ...SECURITY_HEADERS,
  "Content-Security-Policy": DEV_CONTENT_SECURITY_POLICY
};

function addSecurityHeaders(headers: Headers) {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    // A stricter policy set by the route itself stays (a file's bytes are served sandboxed: routes/files-routes.ts).
    if (name === "Content-Security-Policy" && headers.has(name)) continue;
    headers.set(name, value);
  }
}

export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  // A WebSocket upgrade's response cannot be rebuilt (and is no document).
  if (c.res.status === 101) return;
  // The Worker's own responses take the headers in place: copying every
  // response (and Hono merging the copy in) was about a sixth of a REST
  // read's CPU. A response made elsewhere (a Durable Object's, fetch()'s,
  // Response.redirect()'s) has immutable headers, whose first set throws
  // before changing any: that one is copied. In place, these replace a
  // route's own values of the same headers, except its own (stricter) policy.
  try {
    addSecurityHeaders(c.res.headers);
  } catch {
    const response = new Response(c.res.body, c.res);
    addSecurityHeaders(response.headers);
    c.res = response;
  }
};
