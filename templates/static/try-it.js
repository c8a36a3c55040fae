/* The Try it panel of a tool page (generator/model/try_it.py and templates/html/_try_it.html.j2).

   The page's JSON data block (#try-it-data) says where to send, in which protocol era, the auth
   header patterns, the example arguments, both schemas and the locale's messages. Nothing is sent
   until the reader presses Send. Then the panel makes exactly the requests the page's curl sequence
   shows: one POST in the 2026-07-28 era; initialize, initialized, the call and DELETE in a session.

   The arguments are a form made from the input schema: a field per property (a select for an enum,
   a switch for a boolean, a number field with the schema's bounds, a text field), and a fold for
   each nested object and array, whose items are added and removed; required fields are marked, and
   a property the form cannot express (a union, a map) is a small JSON box. "Edit as JSON" shows the
   raw arguments instead. No code is made from the schema: the form is built with DOM calls only
   (the page's Content-Security-Policy allows no eval), and a schema's $ref is followed only inside it.

   Safety: a secret typed into the form lives only in that field and in the request headers built from
   it; it is never stored, logged, or put in a URL, and it is sent only to the endpoint's URL (redirects
   are refused, cookies are never sent). Everything the server answers is shown with textContent: as
   text, never as HTML.

   The arguments are checked as you type by a small check written here, not by a full JSON Schema
   validator: it knows type, properties, required, additionalProperties, items, enum, const, the
   numeric bounds and the length and item counts, and it names every other keyword the schema uses as
   not checked (pattern is one: a server's regular expression could stall the page). Each problem is
   shown under its field, in the page's language. It advises and never blocks: a call with arguments
   it doubts can still be sent, and the server's answer decides. The answer is shown once (the
   structured content when there is some, else the text), and cleared when the arguments change. */
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
    fields.forEach(function (field) {
      field.message.textContent = "";
      field.control.removeAttribute("aria-invalid");
    });
    var current = currentArguments();
    if (current.error) {
      check.appendChild(line("p", current.error[0], current.error[1], "try-bad"));
      return;
    }
    var result = verdict(data.inputSchema, current.value, "arguments");
    var loose = [];
    current.problems.concat(result.problems).forEach(function (problem) {
      var named = problem[0] === "required" || problem[0] === "extra" ? problem[1].path + "." + problem[1].name : problem[1].path;
      var field = jsonMode ? null : fieldAt(named);
      if (!field) { loose.push(problem); return; }
      field.message.appendChild(line("p", problem[0], problem[1], "try-bad"));
      field.control.setAttribute("aria-invalid", "true");
    });
    var shown = { problems: loose, unchecked: result.unchecked };
    if (!loose.length && (current.problems.length || result.problems.length)) {
      check.appendChild(line("p", "problems", {}, "try-bad"));
      if (result.unchecked.length) check.appendChild(line("p", "unchecked", { keywords: result.unchecked.join(", ") }, "stock"));
      return;
    }
    showVerdict(check, shown, "check_ok", "problems");
  }

  /* The field a problem at *path* belongs to: its own, else the nearest one that holds it. */
  function fieldAt(path) {
    for (var at = path; at; at = at.replace(/(\.[^.[\]]*|\[\d+\])$/, "")) {
      for (var i = 0; i < fields.length; i++) if (fields[i].path === at) return fields[i];
      if (at.replace(/(\.[^.[\]]*|\[\d+\])$/, "") === at) break;
    }
    return null;
  }

  /* --- the form ------------------------------------------------------------------------------ */

  var box = form.querySelector(".try-fields");
  var raw = form.querySelector(".try-raw");
  var modeButton = form.querySelector(".try-mode");
  var jsonMode = false;
  var fields = []; // every field with a control: {path, control, message}
  var readRoot = null;
  var serial = 0;

  function own(object, key) {
    return isSchema(object) && Object.prototype.hasOwnProperty.call(object, key);
  }

  /* A schema node with a local $ref followed (#/$defs/...), at most twenty times; anything else as it is. */
  function resolve(node) {
    for (var depth = 0; isSchema(node) && typeof node.$ref === "string" && depth < 20; depth++) {
      if (node.$ref.indexOf("#/") !== 0 && node.$ref !== "#") return {};
      var target = data.inputSchema;
      node.$ref.slice(2).split("/").filter(Boolean).forEach(function (part) {
        part = part.replace(/~1/g, "/").replace(/~0/g, "~");
        target = own(target, part) ? target[part] : undefined;
      });
      node = target;
    }
    return isSchema(node) ? node : {};
  }

  /* What a schema node asks for: a kind of field, the schema it reads, and whether null is allowed. A
     union of one schema and null is that schema, nullable; any other union is a JSON box. */
  function shape(node) {
    var schema = resolve(node);
    var nullable = false;
    var union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
    if (union) {
      var members = union.map(resolve);
      var others = members.filter(function (s) { return s.type !== "null"; });
      if (others.length !== 1 || members.length !== 2) return { kind: "json", schema: schema, nullable: false };
      nullable = true;
      schema = Object.assign({}, others[0], { description: schema.description });
    }
    var types = Array.isArray(schema.type) ? schema.type.slice() : schema.type === undefined ? [] : [schema.type];
    if (types.indexOf("null") !== -1) {
      nullable = true;
      types = types.filter(function (t) { return t !== "null"; });
    }
    var found = { kind: "json", schema: schema, nullable: nullable };
    if (Array.isArray(schema["enum"]) && schema["enum"].length && schema["enum"].length <= 200) found.kind = "enum";
    else if (own(schema, "const")) found.kind = "const";
    else if (types.length !== 1) found.kind = "json";
    else if (types[0] === "boolean") found.kind = "boolean";
    else if (types[0] === "integer" || types[0] === "number") found.kind = "number";
    else if (types[0] === "string") found.kind = "string";
    else if (types[0] === "array" && (schema.items === undefined || isSchema(schema.items))) found.kind = "array";
    else if (types[0] === "object" && isSchema(schema.properties) && !isSchema(schema.additionalProperties) && !schema.patternProperties) found.kind = "object";
    return found;
  }

  function heading(tag, id, name, required) {
    var label = element(tag);
    if (id) label.htmlFor = id;
    var code = label.appendChild(element("code", name));
    code.dir = "ltr";
    if (required) {
      label.appendChild(document.createTextNode(" "));
      label.appendChild(element("span", say("required_field"), "req"));
    }
    return label;
  }

  /* The field for one value: its elements go into *into*; returns read(), which gives {set, value} or
     {set, problem} (a number or JSON box the reader left unreadable). */
  function build(node, name, path, required, initial, has, into, depth) {
    var found = shape(node);
    var schema = found.schema;
    if (depth > 8 && (found.kind === "object" || found.kind === "array")) found.kind = "json";
    if (found.kind === "object") return buildObject(schema, name, path, required, initial, has, into, depth);
    if (found.kind === "array") return buildArray(schema, name, path, required, initial, has, into, depth);
    var id = "try-f-" + (serial += 1);
    var wrap = into.appendChild(element("div", undefined, "try-field try-" + found.kind));
    if (name !== null) wrap.appendChild(heading("label", id, name, required));
    var control;
    var read;
    function empty() { return found.nullable && required ? { set: true, value: null } : { set: false }; }
    if (found.kind === "boolean") {
      var row = wrap.appendChild(element("span", undefined, "try-switch"));
      control = row.appendChild(element("input"));
      control.type = "checkbox";
      control.setAttribute("role", "switch");
      var touched = has || required;
      control.checked = has && initial === true;
      var unset = row.appendChild(element("span", say("unset"), "try-unset"));
      unset.hidden = touched;
      control.addEventListener("change", function () { touched = true; unset.hidden = true; });
      read = function () { return touched ? { set: true, value: control.checked } : { set: false }; };
    } else if (found.kind === "enum" || found.kind === "const") {
      var values = found.kind === "enum" ? schema["enum"] : [schema["const"]];
      control = element("select");
      if (!(required && has) || found.nullable) control.appendChild(element("option", say("unset"))).value = "";
      values.forEach(function (v, i) {
        var option = control.appendChild(element("option", typeof v === "string" ? v : JSON.stringify(v)));
        option.value = String(i);
        if (has && same(v, initial)) option.selected = true;
      });
      read = function () { return control.value === "" ? empty() : { set: true, value: values[+control.value] }; };
    } else if (found.kind === "number") {
      control = element("input");
      control.type = "number";
      control.step = schema.type === "integer" || (Array.isArray(schema.type) && schema.type.indexOf("integer") !== -1) ? "1" : "any";
      if (typeof schema.minimum === "number") control.min = String(schema.minimum);
      if (typeof schema.maximum === "number") control.max = String(schema.maximum);
      if (has && typeof initial === "number") control.value = String(initial);
      read = function () {
        if (control.validity.badInput) return { set: false, problem: ["type", { path: path, expected: found.schema.type === "integer" ? "integer" : "number" }] };
        return control.value === "" ? empty() : { set: true, value: Number(control.value) };
      };
    } else if (found.kind === "string") {
      control = element("input");
      control.type = "text";
      control.dir = "auto";
      if (has && typeof initial === "string") control.value = initial;
      read = function () { return control.value === "" ? empty() : { set: true, value: control.value }; };
    } else {
      control = element("textarea");
      control.rows = 2;
      control.dir = "ltr";
      control.setAttribute("aria-label", say("raw_value"));
      if (has) control.value = JSON.stringify(initial);
      read = function () {
        if (control.value.trim() === "") return empty();
        try { return { set: true, value: JSON.parse(control.value) }; } catch (error) { return { set: false, problem: ["json_value", { path: path }] }; }
      };
    }
    if (control.parentNode === null) wrap.appendChild(control);
    control.id = id;
    control.spellcheck = false;
    control.autocomplete = "off";
    if (name === null) control.setAttribute("aria-label", say("item", { n: +path.replace(/^.*\[(\d+)\]$/, "$1") + 1 }));
    if (required) control.setAttribute("aria-required", "true");
    var message = wrap.appendChild(element("div", undefined, "try-msg"));
    message.id = id + "-msg";
    control.setAttribute("aria-describedby", message.id);
    fields.push({ path: path, control: control, message: message });
    return read;
  }

  /* A fold (<details>) with a field per property; open when the example fills it in. */
  function buildObject(schema, name, path, required, initial, has, into, depth) {
    var fold = into;
    if (name !== null) {
      fold = into.appendChild(element("details", undefined, "try-group"));
      fold.open = has || depth === 0;
      fold.appendChild(element("summary")).appendChild(heading("span", null, name, required));
    }
    var inner = fold.appendChild(element("div", undefined, "try-inner"));
    var needed = Array.isArray(schema.required) ? schema.required : [];
    var values = has && kind(initial) === "object" ? initial : {};
    // Required fields first, then the others, each in the order the page's data gives them.
    var keys = Object.keys(schema.properties);
    keys = keys.filter(function (key) { return needed.indexOf(key) !== -1; }).concat(keys.filter(function (key) { return needed.indexOf(key) === -1; }));
    var readers = keys.map(function (key) {
      var sub = path + "." + key;
      return [key, build(schema.properties[key], key, sub, needed.indexOf(key) !== -1, values[key], own(values, key), inner, depth + 1)];
    });
    return function () {
      var out = {};
      var problems = [];
      var any = false;
      readers.forEach(function (pair) {
        var got = pair[1]();
        if (got.problem) problems.push(got.problem);
        if (got.set) { out[pair[0]] = got.value; any = true; }
        (got.problems || []).forEach(function (p) { problems.push(p); });
      });
      return { set: any || required || has, value: out, problems: problems };
    };
  }

  /* A fold with one field per item, each with a Remove button, and an "Add an item" button. */
  function buildArray(schema, name, path, required, initial, has, into, depth) {
    var fold = into.appendChild(element("details", undefined, "try-group"));
    var list = Array.isArray(initial) && has ? initial : [];
    fold.open = list.length > 0;
    fold.appendChild(element("summary")).appendChild(heading("span", null, name, required));
    var inner = fold.appendChild(element("div", undefined, "try-inner"));
    var items = inner.appendChild(element("ol", undefined, "try-items"));
    var readers = [];
    var touched = has;
    function add(value, given) {
      var li = items.appendChild(element("li"));
      var entry = { read: build(schema.items || {}, null, path + "[" + readers.length + "]", true, value, given, li, depth + 1) };
      var remove = li.appendChild(element("button", say("remove_item", { n: readers.length + 1 }), "try-remove"));
      remove.type = "button";
      remove.addEventListener("click", function () {
        readers.splice(readers.indexOf(entry), 1);
        li.remove();
        touched = true;
        changed();
      });
      readers.push(entry);
      return li;
    }
    list.forEach(function (value) { add(value, true); });
    var more = inner.appendChild(element("button", say("add_item"), "try-add"));
    more.type = "button";
    more.addEventListener("click", function () {
      touched = true;
      var li = add(undefined, false);
      var first = li.querySelector("input, select, textarea");
      if (first) first.focus();
      changed();
    });
    return function () {
      var out = [];
      var problems = [];
      readers.forEach(function (entry) {
        var got = entry.read();
        if (got.problem) problems.push(got.problem);
        (got.problems || []).forEach(function (p) { problems.push(p); });
        if (got.set) out.push(got.value);
      });
      return { set: touched || required || out.length > 0, value: out, problems: problems };
    };
  }

  /* Whether the input schema is one the form can show: an object of properties (or of none). */
  function formable() {
    var root = resolve(data.inputSchema);
    return (root.type === undefined || root.type === "object") && !root.anyOf && !root.oneOf &&
      (root.properties === undefined || isSchema(root.properties));
  }

  function buildForm(value) {
    box.textContent = "";
    fields = [];
    var root = Object.assign({}, resolve(data.inputSchema));
    if (!isSchema(root.properties)) root.properties = {};
    readRoot = buildObject(root, null, "arguments", true, value, true, box, 0);
  }

  function currentArguments() {
    if (jsonMode) {
      var parsed = parsedArguments();
      if (parsed.value) parsed.problems = [];
      return parsed;
    }
    var got = readRoot();
    return { value: got.value, problems: got.problems };
  }

  function setMode(toJson) {
    if (toJson) {
      args.value = JSON.stringify(currentArguments().value, null, 2);
    } else {
      var parsed = parsedArguments();
      if (parsed.error) {
        recheck();
        return;
      }
      buildForm(parsed.value);
    }
    jsonMode = toJson;
    raw.hidden = !toJson;
    box.hidden = toJson;
    modeButton.textContent = say(toJson ? "as_form" : "as_json");
    modeButton.setAttribute("aria-pressed", toJson ? "true" : "false");
    recheck();
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
    var began = performance.now();
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
    // The time of this request alone; serve --try-it's proxy says how long the call itself took.
    var timing = /(?:^|,)\s*call\s*;\s*dur=([0-9.]+)/.exec(response.headers.get("Server-Timing") || "");
    var took = timing ? parseFloat(timing[1]) : performance.now() - began;
    return { response: response, raw: raw, took: took, messages: messages(raw, response.headers.get("Content-Type")) };
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

  /* JSON as JSON's own tokens, each coloured by the classes the build's highlighter gives them
     (assets/highlight.css): a key, a string, a number, true/false/null. Text nodes only. */
  var JSON_TOKENS = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|([\s\S])/g;
  function highlighted(value) {
    var pre = element("pre", undefined, "try-json");
    pre.dir = "ltr";
    pre.tabIndex = 0;
    var code = pre.appendChild(element("code", undefined, "hl"));
    var plain = "";
    function flush() { if (plain) { code.appendChild(document.createTextNode(plain)); plain = ""; } }
    cut(escaped(String(JSON.stringify(value, null, 2)))).replace(JSON_TOKENS, function (all, string, colon, word, number) {
      if (string || word || number) {
        flush();
        code.appendChild(element("span", string || word || number, string ? (colon ? "nt" : "s") : word ? "k" : "m"));
        plain += colon || "";
      } else {
        plain += all;
      }
      return all;
    });
    flush();
    return pre;
  }

  /* A text block of the answer: highlighted when it is JSON, else as text. */
  function textBlock(text) {
    var trimmed = text.trim();
    if (trimmed.charAt(0) === "{" || trimmed.charAt(0) === "[") {
      try { return highlighted(JSON.parse(trimmed)); } catch (error) { /* text, then */ }
    }
    return preformatted(text);
  }

  function show(result, elapsed) {
    answer.textContent = "";
    if (result === null) {
      tell("no_run_token");
      return;
    }
    tell("answered", { ms: Math.round(result.took !== undefined ? result.took : elapsed) });
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
    // The answer once: the structured content when there is some (its text content says the same
    // again, as the specification asks servers to), else each content block.
    var outcome = message.result || {};
    var structured = outcome.structuredContent !== undefined && !outcome.isError;
    answer.appendChild(line("p", outcome.isError ? "tool_error" : structured ? "answer_structured" : "answer_text", {}, outcome.isError ? "try-bad" : ""));
    if (structured) {
      answer.appendChild(highlighted(outcome.structuredContent));
      if (data.outputSchema) {
        showVerdict(answer, verdict(data.outputSchema, outcome.structuredContent, "structuredContent"), "output_ok", "output_bad");
      }
      return;
    }
    (Array.isArray(outcome.content) ? outcome.content : []).forEach(function (item) {
      var textItem = item && item.type === "text" && typeof item.text === "string";
      answer.appendChild(textItem ? textBlock(item.text) : highlighted(item));
    });
    if (data.outputSchema && !outcome.isError) {
      answer.appendChild(line("p", "output_missing", {}, "try-bad"));
    }
  }

  function showError(error) {
    var code = error && error.code !== undefined ? error.code : "?";
    var said = error && typeof error.message === "string" ? marked(error.message) : "";
    answer.appendChild(line("p", "rpc_error", { code: code, message: said }, "try-bad"));
    if (error && error.data !== undefined) answer.appendChild(highlighted(error.data));
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    var current = currentArguments();
    if (current.error) {
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
      show(await run(current.value, controller.signal), performance.now() - started);
    } catch (error) {
      if (controller.signal.aborted) tell("timeout", { seconds: SECONDS });
      else tell("network");
    } finally {
      clearTimeout(timer);
      send.disabled = false;
    }
  });

  /* Any change to the arguments: the check runs again, and an answer on screen, which answered other
     arguments, is cleared. */
  var pending = null;
  function changed() {
    if (answer.firstChild) {
      answer.textContent = "";
      tell("cleared");
    }
    clearTimeout(pending);
    pending = setTimeout(recheck, 250);
  }
  form.addEventListener("input", function (event) { if (!event.target.classList.contains("try-secret")) changed(); });
  form.addEventListener("change", function (event) { if (event.target.id !== "try-confirm" && !event.target.classList.contains("try-secret")) changed(); });
  modeButton.addEventListener("click", function () { setMode(!jsonMode); });
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
  // The skip link at the top of the page opens the Try it tab and puts the cursor in its first field.
  var skip = document.querySelector("a.skip-try");
  var tab = document.getElementById("call-try");
  if (skip && tab) {
    skip.hidden = false;
    skip.addEventListener("click", function (event) {
      event.preventDefault();
      tab.checked = true;
      tab.dispatchEvent(new Event("change", { bubbles: true }));
      var first = form.querySelector(".try-fields:not([hidden]) input, .try-fields:not([hidden]) select, .try-fields:not([hidden]) textarea, .try-fields:not([hidden]) summary, .try-raw:not([hidden]) textarea, .try-send");
      if (first) first.focus();
    });
  }
  if (formable()) {
    buildForm(data.arguments);
    raw.hidden = true;
    modeButton.hidden = false;
  } else {
    jsonMode = true;
    box.hidden = true;
  }
  recheck();
})();
