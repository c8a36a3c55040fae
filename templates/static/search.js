/* mcp-portal: the search dialog, over Pagefind's JavaScript API and the locale's name index (L/names.js).
   portal.js opens the dialog and loads this file on first use; this file loads Pagefind and the name
   index in turn, so nothing of search is fetched until someone searches.

   Ranking: a tool, prompt or resource that the query names (its own name, a word of it, or one of its
   parameters; up to two typing errors forgiven in a word of five letters or more, one in four) comes
   first, best match first; then Pagefind's other hits, the item pages before the pages that list or
   gather them (those match almost any query). */
(function () {
  "use strict";
  var dialog = document.getElementById("search-dialog");
  var input = document.getElementById("search-input");
  var status = document.getElementById("search-status");
  var results = document.getElementById("search-results");
  if (!dialog || !input || !status || !results) { return; }
  var body = document.body;
  var root = body.getAttribute("data-root") || "./";
  var localeRoot = body.getAttribute("data-locale-root") || "./";
  var lang = dialog.getAttribute("data-lang") || "en";
  var forms = JSON.parse(dialog.getAttribute("data-results") || "{}");
  var rules = window.Intl && Intl.PluralRules ? new Intl.PluralRules(lang) : null;
  var numbers = window.Intl ? new Intl.NumberFormat(lang, { numberingSystem: "latn" }) : null;
  function words(text) { return (text || "").replace(/\s+/g, " ").trim(); }
  // Over http, links name directories (…/tools/x/); from disk they name index.html.
  function clean(href) { return location.protocol !== "file:" ? href.replace(/(^|\/)index\.html(?=$|#)/, "$1") : href; }
  function place(href) { return new URL(href, location.href).pathname.replace(/index\.html$/, ""); }

  // --- the name index --------------------------------------------------------------------------
  var names = null;
  function loadNames() {
    if (!names) {
      names = new Promise(function (resolve) {
        if (window.PORTAL_NAMES) { resolve(window.PORTAL_NAMES); return; }
        var script = document.createElement("script");
        script.src = localeRoot + "names.js";
        script.onload = function () { resolve(window.PORTAL_NAMES || []); };
        script.onerror = function () { resolve([]); };
        document.head.appendChild(script);
      });
    }
    return names;
  }
  // Edits between a and b (insert, delete, change, swap two neighbours), or limit + 1 once past limit.
  function distance(a, b, limit) {
    if (Math.abs(a.length - b.length) > limit) { return limit + 1; }
    var prev = null, row = [], i, j;
    for (j = 0; j <= b.length; j++) { row[j] = j; }
    for (i = 1; i <= a.length; i++) {
      var next = [i], least = i;
      for (j = 1; j <= b.length; j++) {
        var value = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1));
        if (prev && j > 1 && a.charAt(i - 1) === b.charAt(j - 2) && a.charAt(i - 2) === b.charAt(j - 1)) { value = Math.min(value, prev[j - 2] + 1); }
        next[j] = value;
        least = Math.min(least, value);
      }
      if (least > limit) { return limit + 1; }
      prev = row;
      row = next;
    }
    return Math.min(row[b.length], limit + 1);
  }
  function allowed(word) { return word.length >= 5 ? 2 : word.length === 4 ? 1 : 0; }
  function parts(name) {
    name = name.slice(0, 64);
    var low = name.toLowerCase();
    var split = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[\s_.\-\/:]+/).filter(Boolean);
    return [low, low.replace(/[\s_.\-\/:]+/g, "")].concat(split);
  }
  // How well *word* names one of *candidates*: 100 exactly, 80 as a prefix, 60 less 10 an edit.
  function fit(word, candidates) {
    var best = 0;
    candidates.forEach(function (c) {
      if (c === word) { best = Math.max(best, 100); return; }
      if (word.length >= 3 && c.indexOf(word) === 0) { best = Math.max(best, 80); return; }
      var limit = allowed(word);
      if (limit) { var d = distance(word, c, limit); if (d <= limit) { best = Math.max(best, 60 - 10 * d); } }
    });
    return best;
  }
  function score(entry, query) {
    var name = entry.n.toLowerCase();
    var q = query.toLowerCase();
    if (name === q) { return 1000; }
    var own = parts(entry.n);
    var joined = q.replace(/[\s_.\-\/:]+/g, "");
    if (joined.length >= 5 && distance(joined, own[1], 2) <= 2) { return 900 - 10 * distance(joined, own[1], 2); }
    var params = (entry.p || []).map(function (p) { return parts(p); });
    var total = 0;
    var tokens = q.split(/\s+/).filter(function (w) { return w.length > 1; });
    for (var i = 0; i < tokens.length; i++) {
      var mine = fit(tokens[i], own);
      var theirs = 0;
      params.forEach(function (p) { theirs = Math.max(theirs, fit(tokens[i], p) * 0.6); });
      var best = Math.max(mine, theirs);
      if (!best) { return 0; }
      total += best;
    }
    return tokens.length ? total / tokens.length + (entry.k === "t" ? 1 : 0) : 0;
  }
  function named(entries, query) {
    return entries.map(function (entry) { return { entry: entry, score: score(entry, query) }; })
      .filter(function (hit) { return hit.score >= 24; })
      .sort(function (a, b) { return b.score - a.score || (a.entry.n < b.entry.n ? -1 : a.entry.n > b.entry.n ? 1 : 0); })
      .slice(0, 8);
  }

  // --- Pagefind --------------------------------------------------------------------------------
  // A large locale is indexed in parts: pagefind/parts.json lists the bundles merged into the search,
  // and the ids of the one page in each that only lists the locale's words (never a result).
  var skip = {};
  var loading = null;
  function load() {
    if (!loading) {
      var bundle = new URL(root + "pagefind/", location.href);
      var options = { baseUrl: new URL(root, location.href).pathname };
      loading = import(new URL("pagefind.js", bundle).href).then(function (pagefind) {
        return pagefind.options(options).then(function () {
          return fetch(new URL("parts.json", bundle).href).then(function (r) { return r.ok ? r.json() : {}; });
        }).then(function (found) {
          var mine = found[lang] || {};
          (mine.skip || []).forEach(function (id) { skip[id] = true; });
          return Promise.all((mine.bundles || []).map(function (part) {
            return pagefind.mergeIndex(new URL(part, bundle).pathname, options);
          }));
        }).then(function () { return pagefind; });
      });
    }
    return loading;
  }
  function count(n) {
    var text = forms[rules ? rules.select(n) : "other"] || forms.other || "{n}";
    return text.replace("{n}", numbers ? numbers.format(n) : String(n));
  }
  // Pagefind's excerpts are text with <mark> around the matches: keep the marks, nothing else. The
  // page's elements are gone from that text, so each left-to-right run in it (words with a Latin letter
  // or a digit and no right-to-left letter, such as a pattern, a value or a name) is made an element of
  // its own again, dir="ltr", lest an Arabic excerpt reorder it.
  var decoder = document.createElement("textarea");
  var LTR_RUN = /[^\s\u0590-\u08ff\ufb1d-\ufeff]*[A-Za-z0-9][^\s\u0590-\u08ff\ufb1d-\ufeff]*(?:\s+[^\s\u0590-\u08ff\ufb1d-\ufeff]*[A-Za-z0-9][^\s\u0590-\u08ff\ufb1d-\ufeff]*)*/g;
  function isolated(pieces, into) {  // pieces: [text, marked]
    var runs = [];
    pieces.map(function (p) { return p[0]; }).join("").replace(LTR_RUN, function (run, at) {
      runs.push(at, at + run.replace(/[.,:;]+$/, "").length);  // the sentence's full stop stays the sentence's
    });
    var at = 0, next = 0, holder = into;
    pieces.forEach(function (p) {
      for (var i = 0; i < p[0].length; ) {
        if (next < runs.length && at + i === runs[next]) {  // a run starts (even) or ends (odd) here
          holder = next % 2 ? into : into.appendChild(document.createElement("span"));
          if (holder !== into) { holder.dir = "ltr"; }
          next++;
          continue;
        }
        var end = Math.min(p[0].length, next < runs.length ? runs[next] - at : Infinity);
        var node = p[1] ? document.createElement("mark") : document.createTextNode("");
        node.textContent = p[0].slice(i, end);
        holder.appendChild(node);
        i = end;
      }
      at += p[0].length;
    });
  }
  function excerpt(html, into) {
    isolated(html.split(/(<mark>[\s\S]*?<\/mark>)/).map(function (part) {
      decoder.innerHTML = part.replace(/<[^>]*>/g, "");  // a <textarea> only decodes entities: no markup
      return [decoder.value, part.indexOf("<mark>") === 0];
    }), into);
  }
  function aggregate(r) { return !/\/(tools|prompts|resources|resource-templates)\//.test(r.url || ""); }
  // Where a hit leads: a query that names the page's title opens its top; else its best section.
  function terms(query) { return query.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 1; }); }
  function withTerms(url, query) {
    var at = url.indexOf("#");
    var path = at === -1 ? url : url.slice(0, at);
    return path + (path.indexOf("?") === -1 ? "?" : "&") + "highlight=" + encodeURIComponent(query) + (at === -1 ? "" : url.slice(at));
  }
  function sections(data) {
    var subs = (data.sub_results || []).filter(function (s) { return s.url && s.url.indexOf("#") !== -1; });
    subs.sort(function (a, b) { return (b.locations || []).length - (a.locations || []).length; });
    return subs.slice(0, 3);
  }
  function item(href, title, into) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = href;
    var name = document.createElement("bdi");
    isolated([[title, false]], name);
    a.appendChild(name);
    li.appendChild(a);
    var p = document.createElement("p");
    p.dir = "auto";  // an English excerpt in an Arabic dialog keeps its own order, isolated
    li.appendChild(p);
    into.appendChild(li);
    return { li: li, p: p };
  }
  function renderNamed(hits, query) {
    hits.forEach(function (hit) {
      var shown = item(withTerms(clean(localeRoot + hit.entry.h), query), hit.entry.n, results);
      shown.li.className = "named";
      isolated([[hit.entry.d || "", false]], shown.p);
    });
  }
  function render(found, query) {
    found.forEach(function (data) {
      var title = words(data.meta && data.meta.title);
      var subs = sections(data);
      var titled = terms(query).some(function (w) { return title.toLowerCase().indexOf(w) !== -1; });
      var shown = item(withTerms(clean(titled || !subs.length ? data.url : subs[0].url), query), title, results);
      excerpt((titled || !subs.length ? data.excerpt : subs[0].excerpt) || "", shown.p);
      // The page's other matching sections, each its own link.
      var more = subs.filter(function (s) { return words(s.title) && words(s.title) !== title; });
      if (more.length) {
        var ul = document.createElement("ul");
        ul.className = "sections-hit";
        more.forEach(function (s) {
          var li = document.createElement("li");
          var link = document.createElement("a");
          link.href = withTerms(clean(s.url), query);
          isolated([[words(s.title), false]], link);
          li.appendChild(link);
          ul.appendChild(li);
        });
        shown.li.appendChild(ul);
      }
    });
  }

  var page = 10;
  var EARLY = 30;
  var queue = [];
  var ready = [];  // loaded results not shown yet, before the queue's
  var generation = 0;
  var moreButton = document.createElement("button");
  moreButton.type = "button";
  moreButton.className = "search-more";
  moreButton.hidden = true;
  moreButton.textContent = dialog.getAttribute("data-more") || "More";
  results.parentNode.insertBefore(moreButton, results.nextSibling);
  function show(query) {
    query = query.slice(0, 100);
    var mine = ++generation;
    moreButton.hidden = true;
    if (query.length < 2) {
      results.textContent = "";
      status.textContent = query ? dialog.getAttribute("data-hint") || "" : "";
      return;
    }
    status.textContent = dialog.getAttribute("data-loading") || "";
    var byName = [];
    Promise.all([loadNames(), load()]).then(function (both) {
      byName = named(both[0], query);
      return both[1].debouncedSearch(query, {}, 150);
    }).then(function (search) {
      if (mine !== generation) { return null; }
      var seen = {};
      byName.forEach(function (hit) { seen[place(localeRoot + hit.entry.h)] = true; });
      var all = (search ? search.results : []).filter(function (r) { return !skip[r.id]; });
      // A result's address is in its data: the first ones are loaded to put a named page once, shown
      // with Pagefind's excerpt and matching sections where Pagefind found it too.
      var early = all.slice(0, EARLY);
      queue = all.slice(EARLY);
      return Promise.all(early.map(function (r) { return r.data(); })).then(function (datas) {
        var twins = {};
        var found = [];
        datas.forEach(function (data) {
          var at = place(data.url);
          if (seen[at]) { twins[at] = twins[at] || data; } else { found.push(data); }
        });
        found = found.filter(function (d) { return !aggregate(d); }).concat(found.filter(aggregate));
        var own = byName.map(function (hit) { return twins[place(localeRoot + hit.entry.h)] || null; });
        var total = all.length - datas.length + found.length + byName.length;
        var first = found.slice(0, Math.max(0, page - byName.length));
        ready = found.slice(first.length);
        return { own: own, found: first, total: total };
      });
    }).then(function (answer) {
      if (!answer || mine !== generation) { return; }
      results.textContent = "";
      byName.forEach(function (hit, i) {
        if (answer.own[i]) {
          render([answer.own[i]], query);
          results.lastChild.className = "named";
        } else {
          renderNamed([hit], query);
        }
      });
      render(answer.found, query);
      status.textContent = answer.total ? count(answer.total) : dialog.getAttribute("data-none") || "";
      moreButton.hidden = !queue.length && !ready.length;
    }).catch(function () {
      if (mine === generation) { status.textContent = dialog.getAttribute("data-failed") || ""; }
    });
  }
  moreButton.addEventListener("click", function () {
    var mine = generation;
    var query = input.value.trim();
    var first = results.children.length;
    var loaded = ready.splice(0, page);
    Promise.all(queue.splice(0, page - loaded.length).map(function (r) { return r.data(); })).then(function (found) {
      found = loaded.concat(found);
      if (mine !== generation) { return; }
      render(found, query);
      moreButton.hidden = !queue.length && !ready.length;
      var next = results.children[first] && results.children[first].querySelector("a");
      if (next) { next.focus(); }
    });
  });
  input.addEventListener("input", function () { show(input.value.trim()); });
  // Enter opens the first result; the arrow keys move between the results' links and back to the box.
  input.addEventListener("keydown", function (event) {
    var first = results.querySelector("a");
    if (event.key === "Enter" && first) { event.preventDefault(); location.href = first.href; }
    if (event.key === "ArrowDown" && first) { event.preventDefault(); first.focus(); }
  });
  results.addEventListener("keydown", function (event) {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") { return; }
    var links = Array.prototype.slice.call(results.querySelectorAll("a"));
    var at = links.indexOf(document.activeElement);
    if (at === -1) { return; }
    event.preventDefault();
    var next = at + (event.key === "ArrowDown" ? 1 : -1);
    if (next < 0) { input.focus(); } else if (next < links.length) { links[next].focus(); }
  });
  results.addEventListener("click", function (event) { if (event.target.closest("a")) { dialog.close(); } });
  load();
  loadNames();
  if (input.value.trim()) { show(input.value.trim()); }
})();
