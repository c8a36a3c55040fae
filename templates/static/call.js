/* A tool page's call and field tables (templates/html/_call_column.html.j2): loaded by tool pages only.
   Every page works without it: the tabs are radio buttons styled by CSS, and every row of a table shows. */
(function () {
  "use strict";
  var KEY = "mcp-portal-call";

  // The call's tabs: the reader's last choice (JSON, Python, TypeScript, curl...) is chosen on every
  // page that has it, and remembered in this browser.
  var tabs = document.querySelectorAll("input.tab-input[data-call]");
  try {
    var chosen = localStorage.getItem(KEY);
    Array.prototype.forEach.call(tabs, function (tab) { if (tab.getAttribute("data-call") === chosen) { tab.checked = true; } });
  } catch (e) { /* storage off: the first tab */ }
  Array.prototype.forEach.call(tabs, function (tab) {
    tab.addEventListener("change", function () {
      try { localStorage.setItem(KEY, tab.getAttribute("data-call")); } catch (e) { /* this page only */ }
    });
  });

  // On a tool page the contents are one line over the reference at every width: a chosen section closes it.
  var toc = document.querySelector(".toc details");
  if (toc) { toc.addEventListener("click", function (event) { if (event.target.closest("a")) { toc.open = false; } }); }

  // Field tables fold: a nested field's rows hide under a button on its parent's row, and a table taller
  // than its share of the screen shows its first rows and a button for the rest. The share: on a wide
  // screen the parameters end where the Returns heading still shows in the first screen; on a narrow one
  // the call, which follows them, starts within the second.
  var wide = window.matchMedia("(min-width: 75rem)");
  function depth(row) { var m = /depth-(\d)/.exec(row.cells[0] ? row.cells[0].className : ""); return m ? +m[1] : 0; }
  function fold(table, budget) {
    var body = table.tBodies[0];
    if (!body) { return; }
    var rows = Array.prototype.slice.call(body.rows);
    var parents = rows.map(function () { return -1; });
    var open = rows.map(function () { return true; });
    var stack = [];
    rows.forEach(function (row, i) {
      while (stack.length && depth(rows[stack[stack.length - 1]]) >= depth(row)) { stack.pop(); }
      parents[i] = stack.length ? stack[stack.length - 1] : -1;
      stack.push(i);
    });
    var cut = rows.length;
    function show() {
      rows.forEach(function (row, i) {
        var seen = i < cut;
        for (var p = parents[i]; seen && p !== -1; p = parents[p]) { seen = open[p]; }
        row.hidden = !seen;
      });
    }
    rows.forEach(function (row, i) {
      if (i + 1 >= rows.length || parents[i + 1] !== i) { return; }
      var name = row.cells[0].querySelector("code");
      var button = document.createElement("button");
      button.type = "button";
      button.className = "fold";
      button.setAttribute("aria-expanded", "true");
      button.setAttribute("aria-label", (table.getAttribute("data-fold") || "{name}").replace("{name}", name ? name.textContent : ""));
      var arrow = document.createElement("span");
      arrow.className = "arrow";
      arrow.setAttribute("aria-hidden", "true");
      arrow.textContent = "\u25b8";
      button.appendChild(arrow);
      row.cells[0].insertBefore(button, row.cells[0].firstChild);
      button.addEventListener("click", function () {
        open[i] = !open[i];
        button.setAttribute("aria-expanded", open[i] ? "true" : "false");
        show();
      });
      if (rows.length > 6) { open[i] = false; button.setAttribute("aria-expanded", "false"); }
    });
    show();
    // Past the budget, the rest of the top-level rows wait behind one button.
    var top = table.getBoundingClientRect().top + window.scrollY;
    var shown = rows.filter(function (row) { return !row.hidden; });
    var over = shown.filter(function (row) { return row.getBoundingClientRect().bottom + window.scrollY - top > budget; });
    if (over.length < 2 || shown.length - over.length < 3) { return; }
    cut = rows.indexOf(over[0]);
    show();
    var more = body.insertRow(cut);
    more.className = "fold-more";
    var cell = more.insertCell(0);
    cell.colSpan = rows[0].cells.length;
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = (table.getAttribute("data-more") || "{n}").replace("{n}", rows.filter(function (r) { return depth(r) === 0; }).length);
    cell.appendChild(button);
    button.addEventListener("click", function () {
      cut = rows.length;
      more.remove();
      show();
      var next = rows.filter(function (r) { return !r.hidden; })[shown.length - over.length];
      var target = next && next.querySelector("button, code");
      if (target) { target.setAttribute("tabindex", "-1"); target.focus(); }
    });
  }
  var tables = document.querySelectorAll("main table.fields");
  Array.prototype.forEach.call(tables, function (table) {
    var top = table.getBoundingClientRect().top + window.scrollY;
    var screen = window.innerHeight;
    var input = table.getAttribute("data-fields") === "input";
    var budget = !input ? screen * 1.5 : wide.matches ? Math.max(240, screen - top - 150) : Math.max(320, 2 * screen - top - 420);
    fold(table, budget);
  });
})();
