/* mcp-portal: small progressive enhancements. Every page works without this file. */
(function () {
  "use strict";
  var body = document.body;
  var root = body.getAttribute("data-root") || "./";
  var localeRoot = body.getAttribute("data-locale-root") || "./";
  var served = location.protocol !== "file:";
  document.documentElement.classList.add("js");

  // Over http, links name directories (…/tools/x/), as every address a reader shares does;
  // from disk they must name index.html, which is how the files are written.
  function clean(href) { return served ? href.replace(/(^|\/)index\.html(?=$|#)/, "$1") : href; }
  function words(text) { return (text || "").replace(/\s+/g, " ").trim(); }
  function menuToggle() { return document.querySelector(".menu-open"); }

  function copyText(text, button) {
    if (!navigator.clipboard) { return; }
    navigator.clipboard.writeText(text).then(function () {
      var label = button.textContent;
      button.textContent = body.getAttribute("data-copied") || "Copied";
      button.setAttribute("data-state", "copied");
      setTimeout(function () { button.textContent = label; button.removeAttribute("data-state"); }, 1500);
    });
  }

  // Copy buttons on code blocks.
  Array.prototype.forEach.call(document.querySelectorAll("main pre"), function (pre) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = body.getAttribute("data-copy") || "Copy";
    button.addEventListener("click", function () { copyText(pre.innerText, button); });
    var wrap = document.createElement("div");
    wrap.className = "code";
    pre.parentNode.insertBefore(wrap, pre);
    wrap.appendChild(button);
    wrap.appendChild(pre);
  });

  // "Copy page as Markdown": fetch the twin (only works over http, not from disk).
  var copyPage = document.querySelector(".copy-page");
  if (copyPage && served) {
    copyPage.hidden = false;
    copyPage.addEventListener("click", function () {
      fetch(body.getAttribute("data-twin")).then(function (r) { return r.text(); })
        .then(function (text) { copyText(text, copyPage); });
    });
  }
  // "Open in Claude / ChatGPT": the assistant is asked to read this page's twin, by its public
  // address, so it needs a page served over http(s); from disk the buttons stay hidden. They are
  // buttons, not links, so the static pages link nowhere outside the site.
  if (/^https?:$/.test(location.protocol)) {
    var twin = new URL(body.getAttribute("data-twin"), location.href).href;
    Array.prototype.forEach.call(document.querySelectorAll("button.ask"), function (button) {
      var target = button.getAttribute("data-ask") + encodeURIComponent(button.getAttribute("data-prompt").replace("{url}", twin));
      button.setAttribute("data-href", target);
      button.addEventListener("click", function () { window.open(target, "_blank", "noopener,noreferrer"); });
      button.parentNode.hidden = false;
    });
  }

  // The page menu (Markdown twin, copy, open in an assistant) closes on Esc and on a click outside it.
  var pageMenu = document.querySelector(".page-actions");
  if (pageMenu) {
    document.addEventListener("click", function (event) { if (pageMenu.open && !pageMenu.contains(event.target)) { pageMenu.open = false; } });
    pageMenu.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && pageMenu.open) { pageMenu.open = false; pageMenu.querySelector("summary").focus(); }
    });
  }

  // Colour theme: Auto (the system's), Light or Dark, remembered in this browser. The inline script
  // in <head> applies a stored choice before the page is drawn; this button changes it.
  var themeButton = document.querySelector(".theme-toggle");
  if (themeButton) {
    var themes = ["auto", "light", "dark"];
    var stored = function () { try { return localStorage.getItem("mcp-portal-theme") || "auto"; } catch (e) { return "auto"; } };
    var showTheme = function (choice) {
      var word = themeButton.getAttribute("data-" + choice) || choice;
      themeButton.querySelector("span").textContent = word;
      themeButton.setAttribute("aria-label", (themeButton.getAttribute("data-label") || "Theme") + ": " + word);
      themeButton.setAttribute("data-theme", choice);
    };
    showTheme(themes.indexOf(stored()) === -1 ? "auto" : stored());
    themeButton.hidden = false;
    themeButton.addEventListener("click", function () {
      var next = themes[(themes.indexOf(themeButton.getAttribute("data-theme")) + 1) % themes.length];
      try { if (next === "auto") { localStorage.removeItem("mcp-portal-theme"); } else { localStorage.setItem("mcp-portal-theme", next); } } catch (e) { /* private mode: this page only */ }
      if (next === "auto") { delete document.documentElement.dataset.theme; } else { document.documentElement.dataset.theme = next; }
      showTheme(next);
    });
  }

  // Sidebar: the lists come from one cached nav.js per locale: tools first, then one
  // group each for prompts, resources and resource templates.
  var nav = window.PORTAL_NAV;
  var list = document.getElementById("tool-nav");
  var more = document.getElementById("more-nav");
  var filter = document.getElementById("tool-filter");
  if (nav && list) {
    var here = location.pathname.replace(/index\.html$/, "");
    var entry = function (item, level, label) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = clean(localeRoot + item.h);
      // As on the pages (<code dir="ltr">): a name is isolated and left-to-right, so it cannot reorder
      // the text around it in an RTL sidebar. nav.js already shows hidden characters as [U+XXXX].
      var name = document.createElement("bdi");
      name.setAttribute("dir", "ltr");
      // A break opportunity after each _ . - / so long names wrap between words, not inside one.
      item.n.split(/(?<=[_.\-/])/).forEach(function (part, i) {
        if (i) { name.appendChild(document.createElement("wbr")); }
        name.appendChild(document.createTextNode(part));
      });
      a.appendChild(name);
      if (a.pathname.replace(/index\.html$/, "") === here) { a.setAttribute("aria-current", "page"); }
      li.setAttribute("data-filter", (item.n + " " + item.t).toLowerCase());
      li.appendChild(a);
      if (level) {
        var badge = document.createElement("span");
        badge.className = "badge badge-" + level;
        badge.textContent = label;
        li.appendChild(document.createTextNode(" "));
        li.appendChild(badge);
      }
      return li;
    };
    // A long tool list comes in groups (the build groups it by the first word of the names, "g"):
    // each group a collapsible <details>, the current page's group open. A short list stays flat.
    var groups = {};
    nav.tools.forEach(function (tool) {
      var li = entry(tool, tool.a, (nav.labels || {})[tool.a]);
      if (typeof tool.g !== "string") { list.appendChild(li); return; }
      if (!groups[tool.g]) {
        var holder = document.createElement("li");
        holder.className = "tool-group";
        var details = document.createElement("details");
        var summary = document.createElement("summary");
        var label = document.createElement("bdi");
        if (tool.g) { label.setAttribute("dir", "ltr"); }
        label.textContent = tool.g || (nav.labels || {}).other || "…";
        summary.appendChild(label);
        var size = document.createElement("span");
        size.className = "count";
        summary.appendChild(size);
        var inner = document.createElement("ul");
        inner.className = "tool-nav";
        details.appendChild(summary);
        details.appendChild(inner);
        holder.appendChild(details);
        list.appendChild(holder);
        groups[tool.g] = { details: details, list: inner, size: size, n: 0 };
      }
      var g = groups[tool.g];
      g.list.appendChild(li);
      g.n += 1;
      g.size.textContent = " " + g.n;
      if (li.querySelector("[aria-current]")) { g.details.open = true; }
    });
    // The current page's link is in view in the sidebar, which scrolls by itself (a column on wide
    // screens, the drawer on narrow ones); the page itself does not move.
    var current = list.querySelector("[aria-current]");
    var side = document.getElementById("sidebar");
    if (current && side) {
      var place = function () {
        var offset = current.getBoundingClientRect().top - side.getBoundingClientRect().top + side.scrollTop;
        if (offset > side.clientHeight * 0.6) { side.scrollTop = offset - side.clientHeight / 2; }
      };
      place();
      if (menuToggle()) { menuToggle().addEventListener("click", function () { window.requestAnimationFrame(place); }); }
    }
    (more ? nav.groups || [] : []).forEach(function (group, i) {
      var heading = document.createElement("p");
      heading.className = "nav-group";
      heading.id = "nav-group-" + i;
      heading.textContent = group.g;
      var ul = document.createElement("ul");
      ul.className = "tool-nav";
      ul.setAttribute("aria-labelledby", heading.id);
      group.i.forEach(function (item) { ul.appendChild(entry(item)); });
      more.appendChild(heading);
      more.appendChild(ul);
    });
    if (filter) {
      filter.parentNode.hidden = false;
      var none = document.querySelector(".sidebar .filter-none");
      filter.addEventListener("input", function () {
        var q = filter.value.trim().toLowerCase();
        var total = 0;
        Array.prototype.forEach.call(document.querySelectorAll(".sidebar li[data-filter]"), function (li) {
          li.hidden = q !== "" && li.getAttribute("data-filter").indexOf(q) === -1;
          if (!li.hidden) { total += 1; }
        });
        // A tool group shows while it has a match (opened, so the match is seen); an item group hides
        // its label too when nothing in it is left.
        Array.prototype.forEach.call(list.querySelectorAll("li.tool-group"), function (holder) {
          var left = holder.querySelectorAll("li[data-filter]:not([hidden])").length;
          holder.hidden = left === 0;
          if (q !== "" && left) { holder.firstChild.open = true; }
        });
        Array.prototype.forEach.call(document.querySelectorAll(".sidebar #more-nav ul.tool-nav"), function (ul) {
          var label = document.getElementById(ul.getAttribute("aria-labelledby"));
          var left = ul.querySelectorAll("li:not([hidden])").length;
          if (label) { label.hidden = ul.hidden = left === 0; }
        });
        if (none) { none.hidden = q === "" || total > 0; }
      });
    }
  }

  // Narrow screens: the sidebar is a drawer, and a real modal while open: the rest of the page is
  // inert (out of reach of Tab and of screen readers), the page behind does not scroll, Tab wraps
  // inside it, and Esc, the close button or a click outside close it and give focus back to the menu
  // button. Without this script the header's menu link jumps to the navigation at the end of the page.
  var drawer = document.getElementById("sidebar");
  var menuOpen = document.querySelector(".menu-open");
  var menuClose = document.querySelector(".menu-close");
  var narrow = window.matchMedia("(max-width: 63.99rem)");
  var behind = Array.prototype.slice.call(document.querySelectorAll("body > header.top, main, body > footer.bottom, body > .skip"));
  function focusables() {
    return Array.prototype.filter.call(drawer.querySelectorAll("a[href], button, input, summary, [tabindex]"), function (e) {
      return !e.disabled && e.tabIndex >= 0 && e.getClientRects().length > 0;
    });
  }
  function setDrawer(open, keepFocus) {
    if (!drawer || !menuOpen) { return; }
    var modal = open && narrow.matches;
    drawer.classList.toggle("open", open);
    menuOpen.setAttribute("aria-expanded", open ? "true" : "false");
    if (modal) { drawer.setAttribute("role", "dialog"); drawer.setAttribute("aria-modal", "true"); }
    else { drawer.removeAttribute("role"); drawer.removeAttribute("aria-modal"); }
    behind.forEach(function (e) { e.inert = modal; });
    document.documentElement.classList.toggle("locked", modal);
    if (open) { (menuClose || drawer).focus(); } else if (!keepFocus && drawer.contains(document.activeElement)) { menuOpen.focus(); }
  }
  // The language switch sits in the header on wide screens and in the drawer on narrow ones.
  var langs = document.querySelector("header.top .langs");
  var langsHome = langs && langs.parentNode;
  var drawerHead = document.querySelector(".sidebar-head");
  function placeLanguages() {
    if (!langs || !drawerHead) { return; }
    if (narrow.matches) { drawerHead.parentNode.insertBefore(langs, drawerHead.nextSibling); }
    else { langsHome.appendChild(langs); }
  }
  if (drawer && menuOpen) {
    menuOpen.setAttribute("role", "button");
    placeLanguages();
    var changed = function () { placeLanguages(); if (drawer.classList.contains("open")) { setDrawer(false); } };
    if (narrow.addEventListener) { narrow.addEventListener("change", changed); }
    if (menuClose) { menuClose.hidden = false; menuClose.addEventListener("click", function () { setDrawer(false); }); }
    menuOpen.addEventListener("click", function (event) { event.preventDefault(); setDrawer(!drawer.classList.contains("open")); });
    document.addEventListener("click", function (event) {
      if (drawer.classList.contains("open") && !drawer.contains(event.target) && !menuOpen.contains(event.target)) { setDrawer(false); }
    });
    document.addEventListener("keydown", function (event) {
      if (!drawer.classList.contains("open")) { return; }
      if (event.key === "Escape") { setDrawer(false); return; }
      if (event.key !== "Tab" || !narrow.matches) { return; }
      var stops = focusables();
      if (!stops.length) { return; }
      var first = stops[0];
      var last = stops[stops.length - 1];
      if (event.shiftKey && (document.activeElement === first || !drawer.contains(document.activeElement))) { event.preventDefault(); last.focus(); }
      else if (!event.shiftKey && (document.activeElement === last || !drawer.contains(document.activeElement))) { event.preventDefault(); first.focus(); }
    });
  }

  // Client tabs: choosing a client in one endpoint's tabs chooses it in every other's, and the choice
  // is remembered in this browser for the next page.
  var clientTabs = document.querySelectorAll("input.tab-input[data-client]");
  var chooseClient = function (client) {
    Array.prototype.forEach.call(clientTabs, function (tab) { if (tab.getAttribute("data-client") === client) { tab.checked = true; } });
  };
  if (clientTabs.length) {
    try { var chosen = localStorage.getItem("mcp-portal-client"); if (chosen) { chooseClient(chosen); } } catch (e) { /* storage off: first tab */ }
    Array.prototype.forEach.call(clientTabs, function (tab) {
      tab.addEventListener("change", function () {
        var client = tab.getAttribute("data-client");
        chooseClient(client);
        try { localStorage.setItem("mcp-portal-client", client); } catch (e) { /* storage off: this page only */ }
      });
    });
  }

  // Tables on a phone: every table with a header row and three or more columns stacks into one card
  // per row (the stylesheet does it for class "stack"), each cell labelled with its column's name as
  // the parameter tables are in the markup. Two-column tables wrap instead; without this script a
  // wide table scrolls sideways inside its box, with a shadow at the edge that has more.
  Array.prototype.forEach.call(document.querySelectorAll("main table:not(.stack)"), function (table) {
    var head = table.tHead && table.tHead.rows[0];
    if (!head || head.cells.length < 3) { return; }
    var names = Array.prototype.map.call(head.cells, function (th) { return words(th.textContent); });
    Array.prototype.forEach.call(table.tBodies, function (tbody) {
      Array.prototype.forEach.call(tbody.rows, function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, i) {
          if (i && names[i] && !cell.hasAttribute("data-label")) { cell.setAttribute("data-label", names[i]); }
        });
      });
    });
    table.classList.add("stack");
  });

  // A box is a tab stop only while it scrolls: a keyboard then reaches what is cut off, and does not
  // stop at every table and code block that shows all it holds. Checked again when the width changes,
  // a <details> opens or a tab is chosen (what was hidden measured nothing).
  var boxes = document.querySelectorAll("main .scroll, main pre");
  var stops = function () {
    Array.prototype.forEach.call(boxes, function (box) {
      if (!box.clientWidth) { return; }
      if (box.scrollWidth > box.clientWidth + 1) { box.setAttribute("tabindex", "0"); }
      else if (box !== document.activeElement) { box.removeAttribute("tabindex"); }
    });
  };
  var restop = null;
  var later = function () { if (restop === null) { restop = window.requestAnimationFrame(function () { restop = null; stops(); }); } };
  stops();
  window.addEventListener("resize", later);
  document.addEventListener("toggle", later, true);
  document.addEventListener("change", later);

  // On this page: shown in full beside the content on wide screens (CSS does it where
  // ::details-content is supported), and the section being read is marked as you scroll.
  var toc = document.querySelector(".toc details");
  if (toc) {
    var wide = window.matchMedia("(min-width: 75rem)");
    var supported = window.CSS && CSS.supports && CSS.supports("selector(::details-content)");
    var fit = function () { if (!supported) { toc.open = wide.matches; } };
    fit();
    if (wide.addEventListener) { wide.addEventListener("change", fit); }
    var links = Array.prototype.slice.call(toc.querySelectorAll("a"));
    // On a narrow screen the control stays at the top of the screen: a chosen section closes it again.
    toc.addEventListener("click", function (event) { if (event.target.closest("a") && !wide.matches) { toc.open = false; } });
    var targets = links.map(function (a) { return document.getElementById(decodeURIComponent(a.hash.slice(1))); });
    var mark = function () {
      var current = 0;
      targets.forEach(function (h, i) { if (h && h.getBoundingClientRect().top < 120) { current = i; } });
      // At the end of the page the last section is the one being read, however short it is.
      if (window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2) { current = targets.length - 1; }
      links.forEach(function (a, i) {
        if (i === current) { a.setAttribute("aria-current", "true"); } else { a.removeAttribute("aria-current"); }
      });
    };
    var pending = false;
    window.addEventListener("scroll", function () {
      if (!pending) { pending = true; window.requestAnimationFrame(function () { pending = false; mark(); }); }
    }, { passive: true });
    mark();
  }

  // The language switch keeps the section you are reading (#fragment) and directory addresses.
  Array.prototype.forEach.call(document.querySelectorAll(".langs a"), function (a) {
    a.href = clean(a.getAttribute("href"));
    a.addEventListener("click", function () { a.href = a.href.split("#")[0] + location.hash; });
  });

  // Printing shows every <details> but the raw schemas and the call's shape (the printout stays
  // short), then puts them back as they were.
  var closed = [];
  window.addEventListener("beforeprint", function () {
    closed = Array.prototype.filter.call(document.querySelectorAll("main details:not(.no-print)"), function (d) { return !d.open; });
    closed.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () { closed.forEach(function (d) { d.open = false; }); closed = []; });

  // A page opened from a search marks the words searched for (?highlight=…) in its content; the
  // first mark is in view unless the address names a section.
  var wanted = served ? new URLSearchParams(location.search).get("highlight") : null;
  if (wanted) {
    var marks = 0;
    var needles = wanted.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 1; }).slice(0, 8);
    var walker = document.createTreeWalker(document.querySelector("main") || body, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        return node.parentNode.closest("pre, script, style, mark, .toc, .crumbs, nav") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
      }
    });
    var nodes = [];
    while (walker.nextNode() && nodes.length < 2000) { nodes.push(walker.currentNode); }
    nodes.forEach(function (node) {
      if (marks >= 200) { return; }
      var text = node.nodeValue;
      var lower = text.toLowerCase();
      var at = -1;
      var len = 0;
      needles.forEach(function (w) { var i = lower.indexOf(w); if (i !== -1 && (at === -1 || i < at)) { at = i; len = w.length; } });
      if (at === -1) { return; }
      var hit = node.splitText(at);
      hit.splitText(len);
      var mark = document.createElement("mark");
      mark.className = "found";
      hit.parentNode.replaceChild(mark, hit);
      mark.appendChild(hit);
      marks += 1;
    });
    var firstMark = document.querySelector("main mark.found");
    if (firstMark && !location.hash) { firstMark.scrollIntoView({ block: "center" }); }
  }

  // Search: a dialog over Pagefind's JavaScript API, loaded on first use only (the index and
  // its WebAssembly are fetched when someone searches, not with every page). Ctrl-K or / opens it.
  var dialog = document.getElementById("search-dialog");
  var openers = Array.prototype.slice.call(document.querySelectorAll(".search-open"));
  var opener = openers[0];
  if (dialog && opener && served && typeof dialog.showModal === "function") {
    var input = document.getElementById("search-input");
    var status = document.getElementById("search-status");
    var results = document.getElementById("search-results");
    var lang = dialog.getAttribute("data-lang") || "en";
    var forms = JSON.parse(dialog.getAttribute("data-results") || "{}");
    var rules = window.Intl && Intl.PluralRules ? new Intl.PluralRules(lang) : null;
    var numbers = window.Intl ? new Intl.NumberFormat(lang, { numberingSystem: "latn" }) : null;
    var loading = null;
    var generation = 0;
    // A large locale is indexed in parts: pagefind/parts.json lists the bundles merged into the search,
    // and the ids of the one page in each that only lists the locale's words (never a result).
    var skip = {};
    var load = function () {
      if (!loading) {
        var bundle = new URL(root + "pagefind/", location.href);
        var options = { baseUrl: new URL(root, location.href).pathname };
        loading = import(new URL("pagefind.js", bundle).href).then(function (pagefind) {
          return pagefind.options(options).then(function () {
            return fetch(new URL("parts.json", bundle).href).then(function (r) { return r.ok ? r.json() : {}; });
          }).then(function (parts) {
            var mine = parts[lang] || {};
            (mine.skip || []).forEach(function (id) { skip[id] = true; });
            return Promise.all((mine.bundles || []).map(function (part) {
              return pagefind.mergeIndex(new URL(part, bundle).pathname, options);
            }));
          }).then(function () { return pagefind; });
        });
      }
      return loading;
    };
    var count = function (n) {
      var text = forms[rules ? rules.select(n) : "other"] || forms.other || "{n}";
      return text.replace("{n}", numbers ? numbers.format(n) : String(n));
    };
    // Pagefind's excerpts are text with <mark> around the matches: keep the marks, nothing else.
    // The page's elements are gone from that text, so each left-to-right run in it (words with a
    // Latin letter or a digit and no right-to-left letter, such as a pattern, a value or a name) is
    // made an element of its own again, dir="ltr", lest an Arabic excerpt reorder it.
    var decoder = document.createElement("textarea");
    var LTR_RUN = /[^\s\u0590-\u08ff\ufb1d-\ufeff]*[A-Za-z0-9][^\s\u0590-\u08ff\ufb1d-\ufeff]*(?:\s+[^\s\u0590-\u08ff\ufb1d-\ufeff]*[A-Za-z0-9][^\s\u0590-\u08ff\ufb1d-\ufeff]*)*/g;
    var isolated = function (pieces, into) {  // pieces: [text, marked]
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
    };
    var excerpt = function (html, into) {
      isolated(html.split(/(<mark>[\s\S]*?<\/mark>)/).map(function (part) {
        decoder.innerHTML = part.replace(/<[^>]*>/g, "");  // a <textarea> only decodes entities: no markup
        return [decoder.value, part.indexOf("<mark>") === 0];
      }), into);
    };
    // Item pages (a tool, prompt or resource) before the pages that list or gather them, which match
    // almost any query; Pagefind's order within each.
    var aggregate = function (r) { return !/\/(tools|prompts|resources|resource-templates)\//.test(r.url || ""); };
    // Where a hit leads: a query that names the page's title opens its top; else its best section.
    var terms = function (query) { return query.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 1; }); };
    var withTerms = function (url, query) {
      var at = url.indexOf("#");
      var path = at === -1 ? url : url.slice(0, at);
      return path + (path.indexOf("?") === -1 ? "?" : "&") + "highlight=" + encodeURIComponent(query) + (at === -1 ? "" : url.slice(at));
    };
    var sections = function (data) {
      var subs = (data.sub_results || []).filter(function (s) { return s.url && s.url.indexOf("#") !== -1; });
      subs.sort(function (a, b) { return (b.locations || []).length - (a.locations || []).length; });
      return subs.slice(0, 3);
    };
    var page = 10;
    var queue = [];
    var render = function (found, query) {
      found.forEach(function (data) {
        var title = words(data.meta && data.meta.title);
        var subs = sections(data);
        var named = terms(query).some(function (w) { return title.toLowerCase().indexOf(w) !== -1; });
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = withTerms(clean(named || !subs.length ? data.url : subs[0].url), query);
        var name = document.createElement("bdi");
        isolated([[title, false]], name);
        a.appendChild(name);
        li.appendChild(a);
        var p = document.createElement("p");
        p.dir = "auto";  // an English excerpt in an Arabic dialog keeps its own order, isolated
        excerpt((named || !subs.length ? data.excerpt : subs[0].excerpt) || "", p);
        li.appendChild(p);
        // The page's other matching sections, each its own link.
        var more = subs.filter(function (s) { return words(s.title) && words(s.title) !== title; });
        if (more.length) {
          var ul = document.createElement("ul");
          ul.className = "sections-hit";
          more.forEach(function (s) {
            var item = document.createElement("li");
            var link = document.createElement("a");
            link.href = withTerms(clean(s.url), query);
            isolated([[words(s.title), false]], link);
            item.appendChild(link);
            ul.appendChild(item);
          });
          li.appendChild(ul);
        }
        results.appendChild(li);
      });
    };
    var moreButton = document.createElement("button");
    moreButton.type = "button";
    moreButton.className = "search-more";
    moreButton.hidden = true;
    moreButton.textContent = dialog.getAttribute("data-more") || "More";
    results.parentNode.insertBefore(moreButton, results.nextSibling);
    var show = function (query) {
      var mine = ++generation;
      moreButton.hidden = true;
      if (query.length < 2) {
        results.textContent = "";
        status.textContent = query ? dialog.getAttribute("data-hint") || "" : "";
        return;
      }
      status.textContent = dialog.getAttribute("data-loading") || "";
      load().then(function (pagefind) { return pagefind.debouncedSearch(query, {}, 150); }).then(function (search) {
        if (!search || mine !== generation) { return null; }
        var hits = search.results.filter(function (r) { return !skip[r.id]; });
        queue = hits.filter(function (r) { return !aggregate(r); }).concat(hits.filter(aggregate));
        return Promise.all(queue.splice(0, page).map(function (r) { return r.data(); })).then(function (found) {
          return { found: found, total: hits.length };
        });
      }).then(function (answer) {
        if (!answer || mine !== generation) { return; }
        results.textContent = "";
        render(answer.found, query);
        status.textContent = answer.total ? count(answer.total) : dialog.getAttribute("data-none") || "";
        moreButton.hidden = !queue.length;
      }).catch(function () {
        if (mine === generation) { status.textContent = dialog.getAttribute("data-failed") || ""; }
      });
    };
    moreButton.addEventListener("click", function () {
      var mine = generation;
      var query = input.value.trim();
      var first = results.children.length;
      Promise.all(queue.splice(0, page).map(function (r) { return r.data(); })).then(function (found) {
        if (mine !== generation) { return; }
        render(found, query);
        moreButton.hidden = !queue.length;
        var next = results.children[first] && results.children[first].querySelector("a");
        if (next) { next.focus(); }
      });
    });
    var open = function () {
      if (!dialog.open) { dialog.showModal(); }
      input.focus();
      input.select();
      load();
    };
    openers.forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        // From the drawer: close it first, so that the dialog gives focus back to the header's button.
        if (drawer && drawer.contains(button)) { setDrawer(false, true); opener.focus(); }
        open();
      });
      button.addEventListener("pointerenter", load, { once: true });
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
    dialog.addEventListener("click", function (event) { if (event.target === dialog) { dialog.close(); } });
    results.addEventListener("click", function (event) { if (event.target.closest("a")) { dialog.close(); } });
    document.addEventListener("keydown", function (event) {
      var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName) || document.activeElement.isContentEditable;
      if ((event.key === "k" || event.key === "K") && (event.ctrlKey || event.metaKey)) { event.preventDefault(); open(); }
      else if (event.key === "/" && !typing && !dialog.open) { event.preventDefault(); open(); }
    });
  }
})();
