/* mcp-portal: the version switcher and the "not the newest" banner of a versioned site.
 *
 * A page never changes once its version is published, so what it says about other versions is read
 * here, at run time, from the site's versions.json (one level above the version's own root): a page
 * built long ago still lists, and points to, the versions published after it. Without this script
 * (or from disk, where a page may not read another file) the switcher is the plain link to the
 * page that lists every version. */
(function () {
  "use strict";
  var nav = document.querySelector("nav.versions");
  if (!nav || !window.fetch || location.protocol === "file:") { return; }
  var here = nav.getAttribute("data-version");
  var root = new URL(document.body.getAttribute("data-root") || "./", location.href); // this version's root
  var top = new URL(nav.getAttribute("data-top") || "../", location.href); // the versioned site's root
  var path = location.pathname.indexOf(root.pathname) === 0 ? location.pathname.slice(root.pathname.length) : "";
  var locale = path.split("/")[0];

  // A catalog sentence with its {placeholders} put in as isolated left-to-right text (a version
  // number must not be reordered by the right-to-left text around it) or as the node given.
  function sentence(text, values) {
    var out = document.createDocumentFragment();
    (text || "").split(/(\{[a-z]+\})/).forEach(function (part) {
      var key = /^\{([a-z]+)\}$/.exec(part);
      if (!key || !(key[1] in values)) { if (part) { out.appendChild(document.createTextNode(part)); } return; }
      var value = values[key[1]];
      if (typeof value === "string") {
        var bdi = document.createElement("bdi");
        bdi.setAttribute("dir", "ltr");
        bdi.textContent = value;
        out.appendChild(bdi);
      } else {
        out.appendChild(value);
      }
    });
    return out;
  }

  // The same page in *version* (a versions.json entry), and the page to offer when it has none:
  // the start page of the same language there, else the version's own start page.
  function sameIn(version) { return new URL(encodeURIComponent(version.version) + "/" + path, top); }
  function nearestIn(version) {
    var known = (version.locales || []).indexOf(locale) !== -1;
    return new URL(encodeURIComponent(version.version) + "/" + (known ? locale + "/" : ""), top);
  }

  // Follow a link to another version: straight there when the page exists, else say so where *note*
  // is and offer the nearest page. The check is one HEAD request to the same site.
  function go(version, event, note) {
    event.preventDefault();
    var target = sameIn(version);
    fetch(target.href, { method: "HEAD" }).then(function (reply) {
      if (reply.ok) { location.href = target.href; return; }
      var link = document.createElement("a");
      link.href = nearestIn(version).href;
      link.appendChild(sentence(nav.getAttribute("data-nearest-link"), { version: version.version }));
      note.textContent = "";
      note.appendChild(sentence(nav.getAttribute("data-missing"), { version: version.version }));
      note.appendChild(document.createTextNode(" "));
      note.appendChild(sentence(nav.getAttribute("data-nearest"), { link: link }));
      note.hidden = false;
      link.focus();
    }).catch(function () { location.href = target.href; });
  }

  function menu(versions) {
    var details = document.createElement("details");
    details.className = "versions-menu";
    var summary = document.createElement("summary");
    summary.appendChild(sentence(nav.getAttribute("data-switch"), { version: here }));
    summary.setAttribute("aria-label", nav.getAttribute("data-menu").replace("{version}", here));
    details.appendChild(summary);
    var list = document.createElement("ul");
    var note = document.createElement("p");
    note.className = "versions-note";
    note.setAttribute("role", "status");
    note.hidden = true;
    versions.forEach(function (version, i) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = sameIn(version).href;
      var name = document.createElement("bdi");
      name.setAttribute("dir", "ltr");
      name.textContent = version.version;
      link.appendChild(name);
      if (version.version === here) {
        link.setAttribute("aria-current", "page");
      } else {
        link.addEventListener("click", function (event) { go(version, event, note); });
      }
      item.appendChild(link);
      [[i === 0, "badge", "data-newest"], [version.breaking, "badge badge-breaking", "data-breaking"]].forEach(function (b) {
        if (!b[0]) { return; }
        var badge = document.createElement("span");
        badge.className = b[1];
        badge.textContent = nav.getAttribute(b[2]);
        item.appendChild(document.createTextNode(" "));
        item.appendChild(badge);
      });
      list.appendChild(item);
    });
    var all = document.createElement("li");
    all.className = "versions-all";
    var allLink = nav.querySelector(".versions-link").cloneNode(false);
    allLink.textContent = nav.getAttribute("data-all");
    all.appendChild(allLink);
    list.appendChild(all);
    var pop = document.createElement("div");
    pop.className = "versions-pop";
    pop.appendChild(list);
    pop.appendChild(note);
    details.appendChild(pop);
    details.addEventListener("toggle", function () { if (!details.open) { note.hidden = true; } });
    details.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && details.open) { details.open = false; summary.focus(); }
    });
    document.addEventListener("click", function (event) { if (details.open && !details.contains(event.target)) { details.open = false; } });
    nav.querySelector(".versions-link").replaceWith(details);
  }

  function banner(versions) {
    var box = document.querySelector(".version-banner");
    var newest = versions[0];
    if (!box || !newest || newest.version === here) { return; }
    var text = document.createElement("p");
    text.appendChild(sentence(box.getAttribute("data-banner"), { version: here, newest: newest.version }));
    var link = document.createElement("a");
    link.href = sameIn(newest).href;
    link.appendChild(sentence(box.getAttribute("data-link"), { newest: newest.version }));
    var note = document.createElement("p");
    note.setAttribute("role", "status");
    note.hidden = true;
    link.addEventListener("click", function (event) { go(newest, event, note); });
    text.appendChild(document.createTextNode(" "));
    text.appendChild(link);
    box.appendChild(text);
    box.appendChild(note);
    box.hidden = false;
  }

  fetch(new URL("versions.json", top).href).then(function (reply) {
    return reply.ok ? reply.json() : null;
  }).then(function (data) {
    var versions = data && Array.isArray(data.versions) ? data.versions.filter(function (v) {
      return v && typeof v.version === "string" && /^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(v.version);
    }) : [];
    if (!versions.length) { return; }
    var mine = versions.filter(function (v) { return v.version === here; })[0];
    if (mine && mine.search === false) {
      Array.prototype.forEach.call(document.querySelectorAll(".search-open"), function (button) { button.hidden = true; });
    }
    menu(versions);
    banner(versions);
  }).catch(function () { /* no versions.json: the plain link stays */ });
})();
