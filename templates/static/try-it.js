/* The Try it panel of a tool page (generator/model/try_it.py and templates/html/_try_it.html.j2).

   The page's JSON data block (#try-it-data) says where to send, in which protocol era, the auth
   header patterns, the example arguments, both schemas and the locale's messages. Nothing is sent
   until the reader presses Send. Then the panel makes exactly the requests the page's curl sequence
   shows: one POST in the 2026-07-28 era; initialize, initialized, the call and DELETE in a session.

   Safety: a secret typed into the form lives only in that field and in the request headers built from
   it; it is never stored, logged, or put in a URL, and it is sent only to the endpoint's URL (redirects
   are refused, cookies are never sent). Everything the server answers is shown with textContent: as
   text, never as HTML.

   The arguments are checked as you type by a small check written here, not by a full JSON Schema
   validator: it knows type, properties, required, additionalProperties, items, enum, const, the
   numeric bounds and the length and item counts, and it names every other keyword the schema uses as
   not checked (pattern is one: a server's regular expression could stall the page). It advises and
   never blocks: a call with arguments it doubts can still be sent, and the server's answer decides. */
(function () {
  "use strict";

  var block = document.getElementById("try-it-data");
  var form = document.querySelector(".try-form");
  if (!block || !form) return;
  var data = JSON.parse(block.textContent);
  var text = data.text || {};
  var SHOWN = 100000; // characters of one answer shown
  var READ = 4 * 1024 * 1024; // bytes of one reply read
  var SECONDS = 30; // one exchange, every request of it
  var CHECKED = [
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
    "title", "description", "default", "examples", "$schema", "$id", "$comment", "deprecated",
    "readOnly", "writeOnly", "$defs", "definitions", "x-mcp-header"
  ];
  var TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
  var RUN = "mcp-portal-try-it-run"; // serve --try-it's token for this tab (its key, not a server's secret)

  var args = document.getElementById("try-args");
  var check = document.getElementById("try-check");
  var status = document.querySelector(".try-status");
  var answer = document.querySelector(".try-answer");
  var confirmBox = document.getElementById("try-confirm");
  var send = form.querySelector(".try-send");
  form.hidden = false;

  function template(key) {
    return Object.prototype.hasOwnProperty.call(text, key) ? text[key] : key;
  }

  function given(values, name) {
    return values && Object.prototype.hasOwnProperty.call(values, name);
  }

  function say(key, values) {
    return template(key).replace(/`/g, "").replace(/\{(\w+)\}/g, function (whole, name) {
      return given(values, name) ? String(values[name]) : whole;
    });
  }

  function element(tag, content, className) {
    var node = document.createElement(tag);
    if (content !== undefined) node.textContent = content;
    if (className) node.className = className;
    return node;
  }

  /* A message as an element: its words as text, and each value and each code span the catalog marks
     (`isError: true`) an element of its own, left to right (a server's or the browser's own words, whose
     direction is unknown, a <bdi>), so that a right-to-left page cannot reorder a path, a code or a limit. */
  var PROSE = ["message", "error"];
  function line(tag, key, values, className) {
    var node = element(tag, undefined, className);
    template(key).split(/(`[^`]*`|\{\w+\})/).forEach(function (part, i) {
      var code = i % 2 === 1 && part.charAt(0) === "`";
      var name = part.slice(1, -1);
      if (!code && !(i % 2 === 1 && given(values, name))) {
        if (part) node.appendChild(document.createTextNode(part));
        return;
      }
      var run = node.appendChild(element(code ? "code" : "bdi", code ? name : String(values[name])));
      if (code || PROSE.indexOf(name) < 0) run.dir = "ltr";
    });
    return node;
  }

  function tell(key, values) {
    status.replaceChildren(line("span", key, values));
  }

  function cut(value) {
    return value.length > SHOWN ? value.slice(0, SHOWN) + "\n" + say("cut", { limit: SHOWN }) : value;
  }

  /* Hidden characters in an answer are marked as the static pages mark them (generator/text.py):
     bidi controls, zero-width and other invisible characters (and C0/C1 controls in text) show as
     [U+XXXX] in text, and as \uXXXX escapes inside JSON, the same value. */
  var HIDDEN = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u00ad\u180e\u034f]|\udb40[\udc00-\udc7f]/g;
  var CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
  var JSON_RAW = /[\x7f-\x9f]/g;

  function marked(value) {
    return value.replace(HIDDEN, function (c) {
      return "[U+" + c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") + "]";
    }).replace(CONTROL, function (c) {
      return "[U+" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "]";
    });
  }

  function escaped(json) {
    function unit(c) { return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"); }
    return json.replace(HIDDEN, function (c) { return c.split("").map(unit).join(""); }).replace(JSON_RAW, unit);
  }

  function preformatted(value) {
    var pre = element("pre", cut(typeof value === "string" ? marked(value) : escaped(String(JSON.stringify(value, null, 2)))));
    pre.dir = "ltr";
    pre.tabIndex = 0;
    return pre;
  }

  /* --- the check of a value against a schema ------------------------------------------------- */

  function kind(value) {
    if (value === null) return "null";
    if (Array.isArray(value)) return "array";
    if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
    return typeof value;
  }

  function canonical(value) {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === "object") {
      var out = {};
      Object.keys(value).sort().forEach(function (key) { out[key] = canonical(value[key]); });
      return out;
    }
    return value;
  }

  function same(a, b) {
    return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
  }

  function isSchema(node) {
    return node !== null && typeof node === "object" && !Array.isArray(node);
  }

  function walk(schema, value, path, found, depth) {
    if (!isSchema(schema) || depth > 64 || found.problems.length >= 20) return;
    Object.keys(schema).forEach(function (key) {
      if (CHECKED.indexOf(key) < 0 && key.indexOf("x-") !== 0) found.unchecked[key] = true;
    });
    if (schema.type !== undefined) {
      var types = Array.isArray(schema.type) ? schema.type : [schema.type];
      var actual = kind(value);
      var fits = types.some(function (t) { return t === actual || (t === "number" && actual === "integer"); });
      if (!fits) {
        found.problems.push(["type", { path: path, expected: types.join(" | ") }]);
        return;
      }
    }
    if (Array.isArray(schema["enum"]) && !schema["enum"].some(function (e) { return same(e, value); })) {
      found.problems.push(["enum", { path: path }]);
    }
    if (Object.prototype.hasOwnProperty.call(schema, "const") && !same(schema["const"], value)) {
      found.problems.push(["const", { path: path }]);
    }
    if (typeof value === "number") {
      bound(schema, "minimum", value < schema.minimum, path, found);
      bound(schema, "maximum", value > schema.maximum, path, found);
      bound(schema, "exclusiveMinimum", value <= schema.exclusiveMinimum, path, found);
      bound(schema, "exclusiveMaximum", value >= schema.exclusiveMaximum, path, found);
    }
    if (typeof value === "string") {
      var length = Array.from(value).length; // code points, as JSON Schema counts
      bound(schema, "minLength", length < schema.minLength, path, found);
      bound(schema, "maxLength", length > schema.maxLength, path, found);
    }
    if (Array.isArray(value)) {
      bound(schema, "minItems", value.length < schema.minItems, path, found);
      bound(schema, "maxItems", value.length > schema.maxItems, path, found);
      if (isSchema(schema.items)) {
        value.forEach(function (item, i) { walk(schema.items, item, path + "[" + i + "]", found, depth + 1); });
      }
    }
    if (kind(value) === "object") objectChecks(schema, value, path, found, depth);
  }

  function bound(schema, key, broken, path, found) {
    if (typeof schema[key] === "number" && broken) found.problems.push([key, { path: path, limit: schema[key] }]);
  }

  function objectChecks(schema, value, path, found, depth) {
    var properties = isSchema(schema.properties) ? schema.properties : {};
    (Array.isArray(schema.required) ? schema.required : []).forEach(function (name) {
      if (typeof name === "string" && !Object.prototype.hasOwnProperty.call(value, name)) {
        found.problems.push(["required", { path: path, name: name }]);
      }
    });
    Object.keys(value).forEach(function (name) {
      var sub = path + "." + name;
      if (Object.prototype.hasOwnProperty.call(properties, name)) {
        walk(properties[name], value[name], sub, found, depth + 1);
      } else if (schema.additionalProperties === false) {
        found.problems.push(["extra", { path: path, name: name }]);
      } else if (isSchema(schema.additionalProperties)) {
        walk(schema.additionalProperties, value[name], sub, found, depth + 1);
      }
    });
  }

  /* Problems of *value* against *schema*, and the keywords met that the check does not know. */
  function verdict(schema, value, root) {
    var found = { problems: [], unchecked: {} };
    walk(schema, value, root, found, 0);
    return { problems: found.problems, unchecked: Object.keys(found.unchecked).sort().slice(0, 12) };
  }

  function showVerdict(into, result, okKey, badKey) {
    if (result.problems.length === 0) {
      into.appendChild(line("p", okKey, {}, "try-ok"));
    } else {
      into.appendChild(line("p", badKey, {}, "try-bad"));
      var list = element("ul");
      result.problems.forEach(function (problem) { list.appendChild(line("li", problem[0], problem[1])); });
      into.appendChild(list);
    }
    if (result.unchecked.length) {
      into.appendChild(line("p", "unchecked", { keywords: result.unchecked.join(", ") }, "stock"));
    }
  }

  function parsedArguments() {
    var value;
    try {
      value = JSON.parse(args.value);
    } catch (error) {
      return { error: ["bad_json", { error: error.message }] };
    }
    if (kind(value) !== "object") return { error: ["not_object", {}] };
    return { value: value };
  }

  function recheck() {
    check.textContent = "";
    var parsed = parsedArguments();
    if (parsed.error) {
      check.appendChild(line("p", parsed.error[0], parsed.error[1], "try-bad"));
      return;
    }
    showVerdict(check, verdict(data.inputSchema, parsed.value, "arguments"), "check_ok", "problems");
  }

  /* --- the requests ------------------------------------------------------------------------ */

  function headerValue(value) {
    if (/^[\x20-\x7E]*$/.test(value) && value === value.trim() && value.indexOf("=?base64?") !== 0) return value;
    var bytes = new TextEncoder().encode(value);
    var binary = "";
    bytes.forEach(function (b) { binary += String.fromCharCode(b); });
    return "=?base64?" + btoa(binary) + "?=";
  }

  /* Mcp-Param-<token> for each argument whose property carries x-mcp-header, as the curl sequence sends it. */
  function paramHeaders(schema, value, into) {
    if (!isSchema(schema) || kind(value) !== "object" || !isSchema(schema.properties)) return;
    Object.keys(schema.properties).forEach(function (key) {
      var sub = schema.properties[key];
      if (!isSchema(sub) || !Object.prototype.hasOwnProperty.call(value, key) || value[key] === null) return;
      var token = sub["x-mcp-header"];
      var item = value[key];
      if (typeof token === "string" && TOKEN.test(token) && typeof item !== "object") {
        into["Mcp-Param-" + token] = headerValue(String(item)); // true and false in lower case, as the curl sequence sends them
      }
      paramHeaders(sub, item, into);
    });
  }

  function authHeaders() {
    var secrets = {};
    document.querySelectorAll(".try-secret").forEach(function (input) { secrets[input.dataset.variable] = input.value; });
    var headers = {};
    (data.auth || []).forEach(function (pair) {
      var missing = false;
      var value = pair[1].replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, function (whole, name) {
        if (!secrets[name]) missing = true;
        return secrets[name] || "";
      });
      if (!missing) headers[pair[0]] = value; // no token typed: the request goes without the header
    });
    return headers;
  }

  async function readBody(response) {
    if (!response.body) return "";
    var reader = response.body.getReader();
    var chunks = [];
    var size = 0;
    for (;;) {
      var part = await reader.read();
      if (part.done) break;
      chunks.push(part.value);
      size += part.value.length;
      if (size >= READ) {
        await reader.cancel();
        break;
      }
    }
    var all = new Uint8Array(Math.min(size, READ));
    var at = 0;
    chunks.forEach(function (chunk) {
      var room = all.length - at;
      all.set(room < chunk.length ? chunk.subarray(0, room) : chunk, at);
      at += Math.min(chunk.length, room);
    });
    return new TextDecoder().decode(all);
  }

  /* The JSON-RPC messages of a reply: one JSON body, or the data of each event of an SSE stream. */
  function messages(body, type) {
    var found = [];
    function add(raw) {
      try {
        var parsed = JSON.parse(raw);
        (Array.isArray(parsed) ? parsed : [parsed]).forEach(function (m) { found.push(m); });
      } catch (error) { /* not a message: the raw body is shown instead */ }
    }
    if ((type || "").toLowerCase().indexOf("text/event-stream") === 0) {
      body.split(/\r?\n\r?\n/).forEach(function (event) {
        var lines = event.split(/\r?\n/).filter(function (l) { return l.indexOf("data:") === 0; });
        if (lines.length) add(lines.map(function (l) { return l.slice(5).replace(/^ /, ""); }).join("\n"));
      });
    } else if (body.trim()) {
      add(body);
    }
    return found;
  }

  async function exchange(method, headers, body, signal) {
    var all = { "Accept": data.accept };
    if (body !== null) all["Content-Type"] = "application/json";
    Object.keys(headers).forEach(function (name) { all[name] = headers[name]; });
    var response = await fetch(data.url, {
      method: method,
      headers: all,
      body: body === null ? undefined : JSON.stringify(body),
      signal: signal,
      mode: "cors",
      credentials: "omit",
      cache: "no-store",
      redirect: "error",
      referrerPolicy: "no-referrer"
    });
    var raw = method === "DELETE" ? "" : await readBody(response);
    return { response: response, raw: raw, messages: messages(raw, response.headers.get("Content-Type")) };
  }

  function reply(result, id) {
    return result.messages.filter(function (m) { return m && m.id === id; })[0];
  }

  function callBody(id, value) {
    var params = { name: data.tool, arguments: value };
    if (data.sessionless) {
      params._meta = {};
      params._meta[data.meta[0]] = data.protocolVersion;
      params._meta[data.meta[1]] = {};
    }
    return { jsonrpc: "2.0", id: id, method: "tools/call", params: params };
  }

  /* serve --try-it: the preview calls the endpoint itself, through the SDK, and answers in JSON-RPC. */
  async function proxied(value, signal) {
    var token = sessionStorage.getItem(RUN);
    if (!token) return null;
    return exchange("POST", { "Mcp-Portal-Run": token }, { name: data.tool, arguments: value }, signal);
  }

  /* The call in the endpoint's era; returns the exchange of the tools/call request. */
  async function run(value, signal) {
    if (data.proxy) return proxied(value, signal);
    var auth = authHeaders();
    var params = {};
    paramHeaders(data.inputSchema, value, params);
    if (data.sessionless) {
      var headers = Object.assign({
        "MCP-Protocol-Version": data.protocolVersion,
        "Mcp-Method": "tools/call",
        "Mcp-Name": headerValue(data.tool)
      }, params, auth);
      return exchange("POST", headers, callBody(1, value), signal);
    }
    var init = {
      jsonrpc: "2.0", id: 1, method: "initialize",
      params: { protocolVersion: data.protocolVersion, capabilities: {}, clientInfo: data.clientInfo }
    };
    var first = await exchange("POST", auth, init, signal);
    var answered = reply(first, 1);
    if (!first.response.ok || !answered || !answered.result) return first;
    var version = typeof answered.result.protocolVersion === "string" ? answered.result.protocolVersion : data.protocolVersion;
    var session = Object.assign({ "MCP-Protocol-Version": version }, auth);
    var id = first.response.headers.get("Mcp-Session-Id");
    if (id) session["Mcp-Session-Id"] = id;
    try {
      await exchange("POST", session, { jsonrpc: "2.0", method: "notifications/initialized" }, signal);
      return await exchange("POST", session, callBody(2, value), signal);
    } finally {
      // End the session; a 405 means the server keeps none to end, which is harmless.
      if (id) await exchange("DELETE", session, null, signal).catch(function () { return null; });
    }
  }

  /* --- the answer ---------------------------------------------------------------------------- */

  function show(result, elapsed) {
    answer.textContent = "";
    if (result === null) {
      tell("no_run_token");
      return;
    }
    tell("answered", { ms: Math.round(elapsed) });
    var id = data.sessionless || data.proxy ? 1 : 2;
    var message = reply(result, id) || reply(result, 1);
    if (!result.response.ok) {
      answer.appendChild(line("p", "http_status", { status: result.response.status }, "try-bad"));
      if (message && message.error) showError(message.error);
      else if (result.raw) answer.appendChild(preformatted(result.raw));
      return;
    }
    if (!message) {
      answer.appendChild(line("p", "no_answer", {}, "try-bad"));
      if (result.raw) answer.appendChild(preformatted(result.raw));
      return;
    }
    if (message.error) {
      showError(message.error);
      return;
    }
    var outcome = message.result || {};
    answer.appendChild(line("p", outcome.isError ? "tool_error" : "tool_ok", {}, outcome.isError ? "try-bad" : ""));
    (Array.isArray(outcome.content) ? outcome.content : []).forEach(function (item) {
      var textItem = item && item.type === "text" && typeof item.text === "string";
      answer.appendChild(preformatted(textItem ? item.text : item));
    });
    if (outcome.structuredContent !== undefined) {
      answer.appendChild(element("h3")).appendChild(element("code", "structuredContent")).dir = "ltr";
      answer.appendChild(preformatted(outcome.structuredContent));
      if (data.outputSchema) {
        showVerdict(answer, verdict(data.outputSchema, outcome.structuredContent, "structuredContent"), "output_ok", "output_bad");
      }
    } else if (data.outputSchema && !outcome.isError) {
      answer.appendChild(line("p", "output_missing", {}, "try-bad"));
    }
  }

  function showError(error) {
    var code = error && error.code !== undefined ? error.code : "?";
    var said = error && typeof error.message === "string" ? marked(error.message) : "";
    answer.appendChild(line("p", "rpc_error", { code: code, message: said }, "try-bad"));
    if (error && error.data !== undefined) answer.appendChild(preformatted(error.data));
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    var parsed = parsedArguments();
    if (parsed.error) {
      recheck();
      args.focus();
      return;
    }
    if (confirmBox && !confirmBox.checked) {
      tell("confirm_first");
      confirmBox.focus();
      return;
    }
    answer.textContent = "";
    tell("sending");
    send.disabled = true;
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, SECONDS * 1000);
    var started = performance.now();
    try {
      show(await run(parsed.value, controller.signal), performance.now() - started);
    } catch (error) {
      if (controller.signal.aborted) tell("timeout", { seconds: SECONDS });
      else tell("network");
    } finally {
      clearTimeout(timer);
      send.disabled = false;
    }
  });

  var pending = null;
  args.addEventListener("input", function () {
    clearTimeout(pending);
    pending = setTimeout(recheck, 250);
  });
  // A secret is not kept for the back button either: the fields are emptied when the page is left.
  window.addEventListener("pagehide", function () {
    document.querySelectorAll(".try-secret").forEach(function (input) { input.value = ""; });
  });
  // serve --try-it prints an address whose fragment holds its run token: keep it for this tab, and
  // take it out of the address bar so that it is not copied along with a link.
  if (data.proxy) {
    var printed = new URLSearchParams(location.hash.slice(1)).get("try-it");
    if (printed) {
      sessionStorage.setItem(RUN, printed);
      history.replaceState(null, "", location.pathname + location.search);
    }
  }
  recheck();
})();
