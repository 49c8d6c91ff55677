// prfeval report: sorting, filtering and the per-query drill-down. Everything works on the
// page's own tables and on the JSON in <script id="drilldown-data">; nothing is fetched.
(function () {
  "use strict";

  function cellValue(cell) {
    var raw = cell.getAttribute("data-value");
    if (raw !== null && raw !== "") {
      var number = Number(raw);
      if (!Number.isNaN(number)) return number;
    }
    return cell.textContent.trim();
  }

  function compare(a, b) {
    var na = typeof a === "number", nb = typeof b === "number";
    if (na && nb) return a - b;
    if (na) return -1; // numbers before text (blank cells)
    if (nb) return 1;
    return String(a).localeCompare(String(b), undefined, { numeric: true });
  }

  function sortBy(table, column, direction) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      var order = compare(cellValue(r1.cells[column]), cellValue(r2.cells[column]));
      return direction === "ascending" ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[table.tHead.rows.length - 1].cells, function (th, i) {
      if (i === column) th.setAttribute("aria-sort", direction);
      else th.removeAttribute("aria-sort");
    });
  }

  function makeSortable(table) {
    var header = table.tHead.rows[table.tHead.rows.length - 1];
    Array.prototype.forEach.call(header.cells, function (th, i) {
      th.setAttribute("title", "Sort by this column");
      th.addEventListener("click", function () {
        var next = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
        sortBy(table, i, next);
      });
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);

  var perQuery = document.getElementById("per-query");
  if (!perQuery) return;

  // The filter: ids between commas (or spaces), each a part of an id, or with "exact ids"
  // the whole of it, so that 13 is query 13 alone and not 113, 132 and 213 as well. A row
  // shows when any of them matches.
  var filter = document.getElementById("query-filter");
  var exact = document.getElementById("query-exact");
  var count = document.getElementById("query-count");
  function applyFilter() {
    var terms = filter.value.split(/[\s,]+/).filter(function (t) { return t !== ""; });
    var whole = exact !== null && exact.checked;
    if (!whole) terms = terms.map(function (t) { return t.toLowerCase(); });
    var rows = perQuery.tBodies[0].rows, shown = 0;
    Array.prototype.forEach.call(rows, function (row) {
      var id = row.getAttribute("data-query");
      if (!whole) id = id.toLowerCase();
      var match = terms.length === 0 || terms.some(function (t) {
        return whole ? id === t : id.indexOf(t) !== -1;
      });
      row.hidden = !match;
      if (match) shown += 1;
    });
    if (count) count.textContent = shown + " of " + rows.length + " shown";
  }
  if (filter) {
    filter.addEventListener("input", applyFilter);
    if (exact) exact.addEventListener("change", applyFilter);
    if (filter.value !== "" || (exact && exact.checked)) applyFilter(); // kept by the browser
  }

  // The run switches: a cleared box hides the columns of its run (headers with data-run).
  var switches = document.getElementById("run-columns");
  if (switches) {
    switches.hidden = false;
    switches.addEventListener("change", function () {
      var off = {};
      Array.prototype.forEach.call(switches.querySelectorAll("input"), function (box) {
        if (!box.checked) off[box.value] = true;
      });
      var hide = Array.prototype.map.call(perQuery.tHead.rows[0].cells, function (th) {
        var run = th.getAttribute("data-run");
        return run !== null && off[run] === true;
      });
      Array.prototype.forEach.call(perQuery.rows, function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, j) { cell.hidden = hide[j]; });
      });
    });
  }

  var largest = document.getElementById("largest-differences");
  if (largest) {
    largest.addEventListener("click", function () {
      var column = Number(largest.getAttribute("data-column"));
      var body = perQuery.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        return Math.abs(cellValue(b.cells[column])) - Math.abs(cellValue(a.cells[column]));
      });
      rows.forEach(function (row) { body.appendChild(row); });
      largest.setAttribute("aria-pressed", "true");
    });
  }

  var dataNode = document.getElementById("drilldown-data");
  var panel = document.getElementById("drilldown");
  if (!dataNode || !panel) return;
  var data = JSON.parse(dataNode.textContent);

  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  function fmt(value, digits) {
    return value === null || value === undefined ? "" : Number(value).toFixed(digits);
  }

  function rankingTable(e) {
    var table = el("table");
    var head = table.createTHead().insertRow();
    ["rank", "doc", "score", "grade", "rel", "P", "R"].forEach(function (h, i) {
      var th = el("th", h);
      if (i === 1) th.className = "text";
      head.appendChild(th);
    });
    var body = table.createTBody();
    var tp = 0;
    e.docs.forEach(function (doc, j) {
      var flag = e.flags.charAt(j);
      if (flag === "r") tp += 1;
      var tr = body.insertRow();
      if (flag === "r") tr.className = "rel";
      var score = e.scores[j], grade = e.grades[j];
      var cells = [j + 1, doc, score === null ? "" : Number(score).toPrecision(4),
        grade === null ? "-" : grade, flag === "r" ? "*" : (flag === "d" ? "repeat" : ""),
        fmt(tp / (j + 1), 3), fmt(e.n_relevant ? tp / e.n_relevant : 0, 3)];
      cells.forEach(function (c, i) {
        var td = el("td", c);
        if (i === 1) td.className = "text";
        tr.appendChild(td);
      });
    });
    return table;
  }

  function showQuery(query) {
    var entry = data.queries[query];
    panel.innerHTML = "";
    panel.hidden = false;
    panel.appendChild(el("h3", "Query " + query));
    var close = el("button", "Close");
    close.addEventListener("click", function () { panel.hidden = true; });
    panel.appendChild(close);
    var runs = el("div", null, "runs");
    data.runs.forEach(function (run, i) {
      var e = entry[run];
      var box = el("div");
      var title = el("h3", null, "run-name");
      var swatch = el("span", null, "swatch");
      if (data.colors) swatch.style.setProperty("--run", data.colors[i]); // as in the tables
      title.appendChild(swatch);
      title.appendChild(document.createTextNode(run));
      box.appendChild(title);
      if (!e) {
        box.appendChild(el("p", "Not evaluated.", "muted"));
        runs.appendChild(box);
        return;
      }
      box.appendChild(el("p", e.n_relevant + " relevant, " + e.n_retrieved + " retrieved" +
        (e.docs.length < e.n_retrieved ? "; the top " + e.docs.length + " shown" : "") +
        ". * counts as relevant; - not judged.", "muted"));
      var values = Object.keys(e.values).map(function (k) { return k + " = " + fmt(e.values[k], 4); });
      if (values.length) box.appendChild(el("p", values.join("; ")));
      if (e.best) {
        box.appendChild(el("p", "Best F: " + fmt(e.best[3], 4) + " at k = " + e.best[0] +
          " (P = " + fmt(e.best[1], 4) + ", R = " + fmt(e.best[2], 4) + ")."));
      }
      var scroll = el("div", null, "scroll");
      scroll.appendChild(rankingTable(e));
      box.appendChild(scroll);
      box.appendChild(el("p", e.missed.length ?
        "Relevant, never retrieved (" + e.missed.length + "): " +
          e.missed.map(function (m) { return m[0] + " (" + m[1] + ")"; }).join(", ") + "." :
        (e.n_relevant ? "Every relevant document was retrieved." : "No relevant documents.")));
      e.ties.forEach(function (t) {
        box.appendChild(el("p", "Ranks " + t[1] + "-" + t[2] + " tie at score " +
          Number(t[3]).toPrecision(4) + " and k = " + t[0] + " cuts through them; in doc id order, " +
          "descending: " + t[4].join(", ") + ".", "note"));
      });
      runs.appendChild(box);
    });
    panel.appendChild(runs);
    panel.scrollIntoView({ block: "nearest" });
  }

  Array.prototype.forEach.call(perQuery.tBodies[0].rows, function (row) {
    row.addEventListener("click", function () {
      Array.prototype.forEach.call(perQuery.tBodies[0].rows, function (r) { r.classList.remove("open"); });
      row.classList.add("open");
      showQuery(row.getAttribute("data-query"));
    });
  });
})();
