/**
 * The files benchmark's floors: `PUT /put?key=K` streams the request body
 * into the bucket (nothing parsed, nothing hashed, nothing held), and
 * answers 201 with the stored size: the least a Worker can do to store an
 * upload, for the app's upload memory to be read against. `PUT /drain`
 * reads the body to its end and drops it: what receiving the bytes alone
 * costs workerd.
 */
interface Env {
  FILES: R2Bucket;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "PUT" && url.pathname === "/drain" && request.body) {
      const reader = request.body.getReader();
      let size = 0;
      for (let read = await reader.read(); !read.done; read = await reader.read()) size += read.value.byteLength;
      return Response.json({ size }, { status: 201 });
    }
    if (request.method !== "PUT" || url.pathname !== "/put" || !request.body) {
      return new Response("r2 floor: PUT /put?key=K or PUT /drain with a body\n");
    }
    const stored = await env.FILES.put(url.searchParams.get("key") ?? "upload", request.body);
    return Response.json({ size: stored?.size ?? 0 }, { status: 201 });
  }
};
