// functions/_middleware.js (Cloudflare Pages Functions, next to the directory you deploy):
// a page URL asked for with "Accept: text/markdown" gets the page's Markdown twin.

/** The q-value `accept` gives `media`: that of its most specific matching range. */
function quality(accept, media) {
  const kind = media.split("/")[0];
  let best = -1;
  let found = 0;
  for (const entry of accept.split(",")) {
    const [name, ...params] = entry.split(";").map((part) => part.trim());
    const lower = name.toLowerCase();
    const rank = lower === media ? 2 : lower === `${kind}/*` ? 1 : lower === "*/*" ? 0 : -1;
    if (rank <= best) continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split("=").map((part) => part.trim());
      if (key.toLowerCase() === "q") q = Math.min(Math.max(Number(value) || 0, 0), 1);
    }
    best = rank;
    found = q;
  }
  return found;
}

function prefersMarkdown(accept) {
  const markdown = quality(accept || "", "text/markdown");
  return markdown > 0 && markdown > quality(accept || "", "text/html");
}

/** /en/tools/x/ or /en/tools/x/index.html -> ["/en/tools/x.md", "/en/tools/x/index.md"]; else []. */
function twinsOf(pathname) {
  const page = /^(\/.*[^/])\/(index\.html)?$/.exec(pathname);
  return page ? [`${page[1]}.md`, `${page[1]}/index.md`] : [];
}

export async function onRequest({ request, next, env }) {
  const url = new URL(request.url);
  const twins = ["GET", "HEAD"].includes(request.method) ? twinsOf(url.pathname) : [];
  if (twins.length && prefersMarkdown(request.headers.get("Accept"))) {
    for (const twin of twins) {
      const found = await env.ASSETS.fetch(new URL(twin, url), { method: request.method });
      if (found.ok) {
        const response = new Response(found.body, found);
        response.headers.set("Content-Type", "text/markdown; charset=utf-8");
        response.headers.set("Vary", "Accept");
        return response;
      }
    }
  }
  const response = await next();
  if (twins.length) {
    const varied = new Response(response.body, response);
    varied.headers.append("Vary", "Accept");
    return varied;
  }
  return response;
}
