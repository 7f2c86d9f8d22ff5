/* plogscan HTML report: the only script in the file (its sha256 is named by the page's CSP).
 * Every row and text was rendered and escaped on the server side. This code only hides,
 * reorders and reads nodes, and sets plain text: it never parses a string as markup. */
(function () {
  "use strict";

  /* A report in another language than English names its words on the root element
   * (data-word-*); English ones are the defaults here. */
  function word(name, english) {
    var text = document.documentElement.getAttribute("data-word-" + name);
    return text === null ? english : text;
  }

  function setupEvents() {
    var table = document.getElementById("events-table");
    if (!table || !table.tBodies.length) { return; }
    var tbody = table.tBodies[0];
    var rows = Array.prototype.slice.call(tbody.rows);
    var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
    rows.forEach(function (row, i) { row.setAttribute("data-order", String(i)); });
    var input = document.getElementById("events-filter");
    var level = document.getElementById("events-level");
    var count = document.getElementById("events-count");

    function applyFilter() {
      var query = input.value.trim().toLowerCase();
      var wanted = level.value;
      var shown = 0;
      rows.forEach(function (row, i) {
        var ok = (!wanted || row.getAttribute("data-level") === wanted) &&
          (!query || texts[i].indexOf(query) !== -1);
        row.hidden = !ok;
        if (ok) { shown += 1; }
      });
      count.textContent = word("rows-shown", "{shown} of {total} rows shown")
        .replace("{shown}", String(shown)).replace("{total}", String(rows.length));
    }

    /* type "num": a number; "loc": "path:line", by path then line number; else text. */
    function cellKey(row, column, type) {
      var cell = row.cells[column];
      var text = cell ? cell.textContent : "";
      var at = type === "loc" ? text.lastIndexOf(":") : -1;
      if (at >= 0) {
        return { raw: text, text: text.slice(0, at), num: parseFloat(text.slice(at + 1)) };
      }
      return { raw: text, text: text, num: type === "num" ? parseFloat(text) : NaN };
    }

    function sortBy(th, column, type) {
      var descending = th.getAttribute("aria-sort") === "ascending";
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (other) {
        other.removeAttribute("aria-sort");
      });
      th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      var sign = descending ? -1 : 1;
      var keyed = rows.map(function (row) {
        var key = cellKey(row, column, type);
        key.row = row;
        key.order = Number(row.getAttribute("data-order"));
        return key;
      });
      keyed.sort(function (a, b) {
        var empty = (a.raw === "") - (b.raw === "");
        if (empty !== 0) { return empty; }  /* blanks last in both directions */
        var c = 0;
        if (type !== "num" || isNaN(a.num) || isNaN(b.num)) {
          c = a.text < b.text ? -1 : (a.text > b.text ? 1 : 0);
        }
        if (c === 0 && !isNaN(a.num) && !isNaN(b.num)) { c = a.num - b.num; }
        return c !== 0 ? sign * c : a.order - b.order;
      });
      var fragment = document.createDocumentFragment();
      keyed.forEach(function (item) { fragment.appendChild(item.row); });
      tbody.appendChild(fragment);
    }

    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      var button = th.querySelector("button.sort");
      if (button) {
        button.addEventListener("click", function () {
          sortBy(th, column, th.getAttribute("data-type"));
        });
      }
    });
    input.addEventListener("input", applyFilter);
    level.addEventListener("change", applyFilter);
    document.querySelectorAll(".controls").forEach(function (el) { el.hidden = false; });
    applyFilter();
  }

  function copyText(text, button) {
    function done(ok) {
      button.textContent = ok ? word("copied", "Copied") : word("copy-failed", "Copy failed");
      window.setTimeout(function () { button.textContent = word("copy", "Copy"); }, 1500);
    }
    function fallback() {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "copy-buffer";
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
      document.body.removeChild(area);
      done(ok);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
    } else {
      fallback();
    }
  }

  function setupCopy() {
    document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        copyText(button.getAttribute("data-copy"), button);
      });
    });
  }

  /* Printing shows every evidence block, then restores what the reader had open. */
  function setupPrint() {
    var closed = [];
    window.addEventListener("beforeprint", function () {
      closed = Array.prototype.filter.call(document.querySelectorAll("details"), function (d) {
        return !d.open;
      });
      closed.forEach(function (d) { d.open = true; });
    });
    window.addEventListener("afterprint", function () {
      closed.forEach(function (d) { d.open = false; });
      closed = [];
    });
  }

  /* Pointing at an incident (or focusing it) highlights the swimlane lanes of its ranks. */
  function setupIncidents() {
    var lanes = Array.prototype.slice.call(document.querySelectorAll("g.lane[data-incidents]"));
    document.querySelectorAll("section.incident[data-incident]").forEach(function (card) {
      var id = card.getAttribute("data-incident");
      function mark(on) {
        lanes.forEach(function (lane) {
          var ids = lane.getAttribute("data-incidents").split(" ");
          lane.classList.toggle("lane-highlight", on && ids.indexOf(id) !== -1);
        });
      }
      card.addEventListener("mouseenter", function () { mark(true); });
      card.addEventListener("mouseleave", function () { mark(false); });
      card.addEventListener("focusin", function () { mark(true); });
      card.addEventListener("focusout", function () { mark(false); });
    });
  }

  setupEvents();
  setupCopy();
  setupPrint();
  setupIncidents();
}());
