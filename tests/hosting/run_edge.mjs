// Runs a documented edge snippet (Cloudflare Pages middleware or Netlify edge function) in Node,
// against a real HTTP server holding the built site. Usage:
//   node run_edge.mjs cloudflare|netlify MODULE.mjs BASE_URL CASES_JSON
// CASES_JSON: [[method, path, accept|null], ...]. Prints one JSON line of results.
const [kind, modulePath, base, casesJson] = process.argv.slice(2);
const mod = await import(modulePath);
const plain = async (url, method) => {
  // The host's static server: no Accept header, so it answers with the file the URL names.
  const response = await fetch(url, { method, redirect: "manual" });
  return new Response(method === "HEAD" ? null : await response.arrayBuffer(), response);
};
const results = [];
for (const [method, path, accept] of JSON.parse(casesJson)) {
  const headers = accept === null ? {} : { Accept: accept };
  const request = new Request(new URL(path, base), { method, headers });
  let response;
  if (kind === "cloudflare") {
    const env = { ASSETS: { fetch: (url, init) => plain(new URL(new URL(url).pathname, base), init?.method ?? "GET") } };
    response = await mod.onRequest({ request, env, next: () => plain(request.url, method) });
  } else {
    response = await mod.default(request, { next: () => plain(request.url, method) });
  }
  const body = method === "HEAD" ? "" : Buffer.from(await response.arrayBuffer()).toString("base64");
  results.push({
    status: response.status,
    type: response.headers.get("Content-Type"),
    vary: response.headers.get("Vary"),
    body,
  });
}
console.log(JSON.stringify(results));
