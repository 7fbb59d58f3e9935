/**
 * How a script uses a token, under the token list. Connecting an MCP client
 * to this workspace's `/mcp` with a token belongs here too, beside the REST
 * example, as another section of this component.
 */
export function TokenUsage() {
  const origin = window.location.origin;
  return (
    <section aria-labelledby="token-usage-heading" className="space-y-2 rounded-lg bg-surface-soft p-3">
      <h3 id="token-usage-heading" className="text-sm font-semibold text-fg-2">
        Use a token
      </h3>
      <p className="text-xs text-fg-muted">Send it as a bearer token with every request to the REST API:</p>
      <pre className="overflow-x-auto rounded bg-surface px-3 py-2 font-mono text-xs text-fg-2">
        <code>{`curl -H "authorization: Bearer rt.…" ${origin}/api/rooms`}</code>
      </pre>
    </section>
  );
}
