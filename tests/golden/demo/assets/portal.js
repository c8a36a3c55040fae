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

  // Sidebar: the tool list comes from one cached nav.js per locale.
  var nav = window.PORTAL_NAV;
  var list = document.getElementById("tool-nav");
  var filter = document.getElementById("tool-filter");
  if (nav && list) {
    var here = location.pathname.replace(/index\.html$/, "");
    nav.tools.forEach(function (tool) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = localeRoot + tool.h;
      a.textContent = tool.n;
      a.setAttribute("dir", "ltr");
      if (a.pathname.replace(/index\.html$/, "") === here) { a.setAttribute("aria-current", "page"); }
      var badge = document.createElement("span");
      badge.className = "badge badge-" + tool.a;
      badge.textContent = tool.l;
      li.setAttribute("data-filter", (tool.n + " " + tool.t).toLowerCase());
      li.appendChild(a);
      li.appendChild(document.createTextNode(" "));
      li.appendChild(badge);
      list.appendChild(li);
    });
    if (filter) {
      filter.parentNode.hidden = false;
      filter.addEventListener("input", function () {
        var q = filter.value.trim().toLowerCase();
        Array.prototype.forEach.call(list.children, function (li) {
          li.hidden = q !== "" && li.getAttribute("data-filter").indexOf(q) === -1;
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
