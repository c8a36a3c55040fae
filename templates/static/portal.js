/* mcp-portal: small progressive enhancements. Every page works without this file. */
(function () {
  "use strict";
  var body = document.body;
  var root = body.getAttribute("data-root") || "./";
  var localeRoot = body.getAttribute("data-locale-root") || "./";

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
  if (copyPage && location.protocol !== "file:") {
    copyPage.hidden = false;
    copyPage.addEventListener("click", function () {
      fetch(body.getAttribute("data-twin")).then(function (r) { return r.text(); })
        .then(function (text) { copyText(text, copyPage); });
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
      a.href = localeRoot + item.h;
      // As on the pages (<code dir="ltr">): a name is isolated and left-to-right, so it cannot reorder
      // the text around it in an RTL sidebar. nav.js already shows hidden characters as [U+XXXX].
      var name = document.createElement("bdi");
      name.setAttribute("dir", "ltr");
      name.textContent = item.n;
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
    nav.tools.forEach(function (tool) { list.appendChild(entry(tool, tool.a, tool.l)); });
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
      filter.addEventListener("input", function () {
        var q = filter.value.trim().toLowerCase();
        Array.prototype.forEach.call(document.querySelectorAll(".sidebar ul.tool-nav"), function (ul) {
          var shown = 0;
          Array.prototype.forEach.call(ul.children, function (li) {
            li.hidden = q !== "" && li.getAttribute("data-filter").indexOf(q) === -1;
            if (!li.hidden) { shown += 1; }
          });
          // A group with nothing left to show hides its label too (the tool list keeps its place).
          var label = ul.id === "tool-nav" ? null : document.getElementById(ul.getAttribute("aria-labelledby"));
          if (label) { label.hidden = ul.hidden = shown === 0; }
        });
      });
    }
  }

  // Search: Pagefind's own UI, loaded only when served over http and the index exists.
  var search = document.getElementById("search");
  if (search && location.protocol !== "file:") {
    var css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = root + "pagefind/pagefind-ui.css";
    document.head.appendChild(css);
    var script = document.createElement("script");
    script.src = root + "pagefind/pagefind-ui.js";
    script.onload = function () {
      search.hidden = false;
      /* global PagefindUI */
      new PagefindUI({
        element: "#search",
        bundlePath: root + "pagefind/",
        baseUrl: new URL(root, location.href).pathname,
        showImages: false,
        showSubResults: false,
        resetStyles: false
      });
    };
    document.head.appendChild(script);
  }
})();
