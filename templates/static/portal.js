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

  // The header's height, for what stays in view under it (the sidebar, the contents, a tool's call).
  var head = document.querySelector("header.top");
  var measure = function () { if (head && head.offsetHeight) { document.documentElement.style.setProperty("--head", head.offsetHeight + "px"); } };
  measure();
  // Measured again whenever the header's own height changes (its contents settle after the first paint).
  if (head && window.ResizeObserver) { new ResizeObserver(measure).observe(head); } else { window.addEventListener("resize", measure); }

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
      // A break opportunity after each _ and . so long names wrap between words, never inside one; a
      // piece with a hyphen or a slash, where the browser would break by itself, is kept whole.
      item.n.split(/(?<=[_.])(?=[^_.])/).forEach(function (part, i) {
        if (i) { name.appendChild(document.createElement("wbr")); }
        var piece = name.appendChild(document.createElement("span"));
        if (/[-/]/.test(part)) { piece.className = "nw"; }
        piece.textContent = part;
      });
      a.appendChild(name);
      if (a.pathname.replace(/index\.html$/, "") === here) { a.setAttribute("aria-current", "page"); }
      li.setAttribute("data-filter", (item.n + " " + item.t + " " + (label || "")).toLowerCase());
      li.setAttribute("data-h", item.h);
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
      // Besides names and badges, the filter matches each item's summary, from the locale's name index
      // (L/names.js, a script so that it loads from disk too), fetched when the box is first used.
      filter.addEventListener("focus", function () {
        var index = document.createElement("script");
        index.src = localeRoot + "names.js";
        index.onload = function () {
          var said = {};
          (window.PORTAL_NAMES || []).forEach(function (e) { said[e.h] = e.d || ""; });
          Array.prototype.forEach.call(document.querySelectorAll(".sidebar li[data-h]"), function (li) {
            li.setAttribute("data-filter", li.getAttribute("data-filter") + " " + (said[li.getAttribute("data-h")] || "").toLowerCase());
          });
          filter.dispatchEvent(new Event("input"));
        };
        document.head.appendChild(index);
      }, { once: true });
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
    // A name broken at _ and . for wrapping is several text nodes: its element is marked whole.
    if (!marks) {
      Array.prototype.forEach.call((document.querySelector("main") || body).querySelectorAll("h1, code"), function (el) {
        var text = el.textContent.toLowerCase();
        if (marks >= 200 || el.closest("pre, .toc, .crumbs, nav") || !needles.some(function (w) { return text.indexOf(w) !== -1; })) { return; }
        var mark = document.createElement("mark");
        mark.className = "found";
        while (el.firstChild) { mark.appendChild(el.firstChild); }
        el.appendChild(mark);
        marks += 1;
      });
    }
    var firstMark = document.querySelector("main mark.found");
    if (firstMark && !location.hash) { firstMark.scrollIntoView({ block: "center" }); }
  }

  // Search: a dialog whose code (assets/search.js) loads on first use, and Pagefind's index with it,
  // so no page fetches anything of search until someone searches. Ctrl-K or / opens it.
  var dialog = document.getElementById("search-dialog");
  var openers = Array.prototype.slice.call(document.querySelectorAll(".search-open"));
  if (dialog && openers.length && served && typeof dialog.showModal === "function") {
    var input = document.getElementById("search-input");
    var code = null;
    var fetchSearch = function () {
      if (!code) { code = document.createElement("script"); code.src = root + "assets/search.js"; document.head.appendChild(code); }
    };
    var open = function () {
      if (!dialog.open) { dialog.showModal(); }
      input.focus();
      input.select();
      fetchSearch();
    };
    openers.forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        // From the drawer: close it first, so that the dialog gives focus back to the header's button.
        if (drawer && drawer.contains(button)) { setDrawer(false, true); openers[0].focus(); }
        open();
      });
      button.addEventListener("pointerenter", fetchSearch, { once: true });
    });
    // Esc closes at once: in a search box the browser's own first Esc would only empty it.
    dialog.addEventListener("keydown", function (event) { if (event.key === "Escape") { event.preventDefault(); dialog.close(); } });
    dialog.addEventListener("click", function (event) { if (event.target === dialog) { dialog.close(); } });
    document.addEventListener("keydown", function (event) {
      var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName) || document.activeElement.isContentEditable;
      if ((event.key === "k" || event.key === "K") && (event.ctrlKey || event.metaKey)) { event.preventDefault(); open(); }
      else if (event.key === "/" && !typing && !dialog.open) { event.preventDefault(); open(); }
    });
  }
})();
