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
  var meta = JSON.parse(dataNode.textContent);
  var queryIndex = {};
  meta.queries.forEach(function (q, j) { queryIndex[q] = j; });

  // The places are columns of typed arrays in one zlib buffer, in base 85 (see
  // prfeval/_report/drilldown.py); decoded once, when first needed, by the browser's own
  // DecompressionStream: nothing is fetched.
  var TYPES = { uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array,
    uint32: Uint32Array, int32: Int32Array, float64: Float64Array };
  var decoded = null;

  function column(raw, spec) {
    var Type = TYPES[spec[0]], size = Type.BYTES_PER_ELEMENT, offset = spec[1], n = spec[2];
    var bytes = new Uint8Array(n * size);
    if (size === 1 || spec[0] === "float64") {
      bytes.set(raw.subarray(offset, offset + n * size));
    } else { // integers are stored as byte planes
      for (var b = 0; b < size; b++) {
        var plane = raw.subarray(offset + b * n, offset + (b + 1) * n);
        for (var i = 0; i < n; i++) bytes[i * size + b] = plane[i];
      }
    }
    return new Type(bytes.buffer);
  }

  // Base 85: 5 digits (most significant first) a big-endian 32-bit word.
  var DIGITS = "!#$%()*+,-.0123456789:;?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_abcdefghijklmnopqrstuvwxyz{|}~";
  function base85(text, n) {
    var value = new Uint8Array(128), out = new Uint8Array(text.length / 5 * 4), o = 0;
    for (var d = 0; d < 85; d++) value[DIGITS.charCodeAt(d)] = d;
    for (var i = 0; i < text.length; i += 5) {
      var w = value[text.charCodeAt(i)];
      for (var k = 1; k < 5; k++) w = w * 85 + value[text.charCodeAt(i + k)];
      out[o] = w >>> 24; out[o + 1] = (w >>> 16) & 255; out[o + 2] = (w >>> 8) & 255; out[o + 3] = w & 255;
      o += 4;
    }
    return out.subarray(0, n);
  }

  function decode() {
    var packed = base85(meta.blob, meta.blob_bytes);
    var stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).arrayBuffer().then(function (buffer) {
      var raw = new Uint8Array(buffer), c = {};
      Object.keys(meta.columns).forEach(function (name) { c[name] = column(raw, meta.columns[name]); });
      // The ids: front-coded, each keeps `prefix` bytes of the one before.
      var n = c.vocab_prefix.length, starts = new Uint32Array(n + 1);
      for (var v = 0; v < n; v++) starts[v + 1] = starts[v] + c.vocab_prefix[v] + c.vocab_suffix_len[v];
      var ids = new Uint8Array(starts[n]), from = 0;
      for (v = 0; v < n; v++) {
        var keep = c.vocab_prefix[v], own = c.vocab_suffix_len[v];
        if (keep) ids.copyWithin(starts[v], starts[v - 1], starts[v - 1] + keep);
        ids.set(c.vocab_suffix.subarray(from, from + own), starts[v] + keep);
        from += own;
      }
      c.idStarts = starts;
      c.idBytes = ids;
      // Each query's union of codes, from its differences.
      var union = new Float64Array(c.union_delta.length), q, u;
      for (q = 0; q + 1 < c.union_offsets.length; q++) {
        var sum = 0;
        for (u = c.union_offsets[q]; u < c.union_offsets[q + 1]; u++) { sum += c.union_delta[u]; union[u] = sum; }
      }
      c.union = union;
      // Where each ranking's escaped scores start in score_escapes.
      if (c.score_escapes) {
        var starts = new Int32Array(c.place_offsets.length), e = 0;
        for (var at = 0; at + 1 < c.place_offsets.length; at++) {
          starts[at] = e;
          for (var p = c.place_offsets[at]; p < c.place_offsets[at + 1]; p++) if (c.scores[p] === 255) e++;
        }
        starts[c.place_offsets.length - 1] = e;
        c.escapeStarts = starts;
      }
      c.ties = JSON.parse(utf8.decode(c.ties));
      return c;
    });
  }

  function load() {
    if (decoded === null) decoded = decode();
    return decoded;
  }

  var utf8 = new TextDecoder("utf-8");
  function docId(c, code) { return utf8.decode(c.idBytes.subarray(c.idStarts[code], c.idStarts[code + 1])); }

  // One run's drill-down of one query, in the shape the panel draws.
  function entryOf(c, r, j) {
    var Q = meta.queries.length, R = meta.runs.length, at = r * Q + j;
    if (!c.present[at]) return null;
    var lo = c.place_offsets[at], hi = c.place_offsets[at + 1], u0 = c.union_offsets[j];
    var docs = [], scores = [], grades = [], flags = "", score = 0, seen = {};
    var scale = meta.scale === null ? null : Math.pow(10, meta.scale);
    var escape = c.escapeStarts ? c.escapeStarts[at] : 0;
    for (var p = lo; p < hi; p++) {
      var u = c.place_union[p];
      docs.push(docId(c, c.union[u0 + u]));
      if (!c.has_scores[r]) scores.push(null);
      else if (scale === null) scores.push(c.scores[p]);
      else {
        score = c.scores[p] === 255 ? c.score_escapes[escape++] : score - c.scores[p];
        scores.push(score / scale);
      }
      var g = c.grades[p];
      grades.push(g === meta.unjudged ? null : g);
      if (c.flags) {
        var f = c.flags[p];
        flags += f & 1 ? "r" : (f & 2 ? "d" : ".");
      } else { // relevant: judged, at least the level, not a repeat
        flags += seen[u] ? "d" : (g !== meta.unjudged && g >= meta.level ? "r" : ".");
      }
      seen[u] = true;
    }
    var m = j * R + r, missed = [], code = 0;
    for (var x = c.missed_offsets[m]; x < c.missed_offsets[m + 1]; x++) {
      code += c.missed_delta[x];
      missed.push([docId(c, code), c.missed_grades[x]]);
    }
    var K = meta.labels.length, values = {};
    meta.labels.forEach(function (label, k) {
      var value = c.values[(r * K + k) * Q + j];
      values[label] = Number.isNaN(value) ? null : value;
    });
    var best = null, k = c.best_k[at];
    if (k > 0) { // as prfeval computes F: (b^2 + 1) P R / (b^2 P + R), 0 when TP is 0
      var tp = c.best_tp[at], nrel = c.n_relevant[at], b2 = meta.beta * meta.beta;
      var P = tp / k, Rc = nrel ? tp / nrel : 0;
      best = [k, P, Rc, tp > 0 ? (b2 + 1) * P * Rc / (b2 * P + Rc) : 0];
    }
    var ties = (c.ties[String(r)] || {})[String(j)] || [];
    return { n_retrieved: c.n_retrieved[at], n_relevant: c.n_relevant[at], docs: docs,
      scores: scores, grades: grades, flags: flags, missed: missed, ties: ties,
      values: values, best: best };
  }

  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  // Python's format() rounds an exact tie to even, toFixed() away from zero (0.03125 is
  // "0.0312" there, "0.0313" here): the script's digits must be the page's. toFixed(100)
  // gives the exact decimal digits of a double, so a tie is a 5 followed by zeros.
  function fixed(value, digits) {
    var x = Number(value);
    var rounded = (Object.is(x, -0) ? "-" : "") + x.toFixed(digits);
    if (!isFinite(x) || Math.abs(x) >= 1e21) return rounded;
    var exact = Math.abs(x).toFixed(100);
    var point = exact.indexOf(".");
    if (!/^50*$/.test(exact.slice(point + 1 + digits))) return rounded;
    var kept = exact.slice(0, digits > 0 ? point + 1 + digits : point);
    if (Number(kept.charAt(kept.length - 1)) % 2 === 1) return rounded;
    return (x < 0 ? "-" : "") + kept;
  }

  function fmt(value, digits) {
    return value === null || value === undefined ? "" : fixed(value, digits);
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
    panel.setAttribute("aria-busy", "true");
    return load().then(function (c) { drawQuery(c, query); });
  }

  function drawQuery(c, query) {
    var j = queryIndex[query];
    panel.innerHTML = "";
    panel.hidden = false;
    panel.appendChild(el("h3", "Query " + query));
    var close = el("button", "Close");
    close.addEventListener("click", function () { panel.hidden = true; });
    panel.appendChild(close);
    var runs = el("div", null, "runs");
    meta.runs.forEach(function (run, i) {
      var e = j === undefined ? null : entryOf(c, i, j);
      var box = el("div");
      var title = el("h3", null, "run-name");
      var swatch = el("span", null, "swatch");
      if (meta.colors) swatch.style.setProperty("--run", meta.colors[i]); // as in the tables
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
    panel.setAttribute("data-shown", query);
    panel.setAttribute("aria-busy", "false");
    panel.scrollIntoView({ block: "nearest" });
  }

  // One listener for every row, those the script adds included.
  perQuery.tBodies[0].addEventListener("click", function (event) {
    var row = event.target.closest("tr");
    if (!row || !row.hasAttribute("data-query")) return;
    Array.prototype.forEach.call(perQuery.tBodies[0].rows, function (r) { r.classList.remove("open"); });
    row.classList.add("open");
    showQuery(row.getAttribute("data-query"));
  });

  // A large study leaves the per-query rows to the script, from the same data.
  var table = meta.table;
  if (table) {
    load().then(function (c) { fillRows(c, table); });
  }

  function numberText(value, digits) {
    return Number.isNaN(value) ? "n/a" : fixed(value, digits);
  }

  function fillRows(c, table) {
    var Q = meta.queries.length, K = meta.labels.length, R = meta.runs.length;
    var body = perQuery.tBodies[0], rows = document.createDocumentFragment();
    function cell(tr, text, value, className) {
      var td = document.createElement("td");
      td.textContent = text;
      if (value !== null && !Number.isNaN(value)) td.setAttribute("data-value", String(value));
      if (className) td.className = className;
      tr.appendChild(td);
      return td;
    }
    meta.queries.forEach(function (q, j) {
      var tr = document.createElement("tr");
      tr.setAttribute("data-query", q);
      cell(tr, q, null, "text");
      for (var k = 0; k < K; k++) {
        for (var r = 0; r < R; r++) {
          var v = c.values[(r * K + k) * Q + j];
          cell(tr, numberText(v, table.totals[k] ? 0 : 4), v, "");
        }
      }
      if (table.diff !== null) {
        table.others.forEach(function (r) {
          var d = c.values[(r * K + table.diff) * Q + j] - c.values[(table.base * K + table.diff) * Q + j];
          var way = "";
          if (table.sign !== 0 && !Number.isNaN(d) && Math.abs(d) > 1e-12) {
            way = table.sign * d > 0 ? "better" : "worse";
          }
          var td = cell(tr, Number.isNaN(d) ? "n/a" : (d >= 0 ? "+" : "") + fixed(d, 4), d,
            ("delta " + way).trim());
          if (way) {
            var arrow = document.createElement("span");
            arrow.className = "dir";
            arrow.setAttribute("role", "img");
            arrow.setAttribute("aria-label", way);
            arrow.setAttribute("title", way + " than the baseline");
            arrow.textContent = way === "better" ? "\u25b2" : "\u25bc";
            td.appendChild(document.createTextNode(" "));
            td.appendChild(arrow);
          }
        });
      }
      rows.appendChild(tr);
    });
    body.appendChild(rows);
    perQuery.setAttribute("data-filled", "true");
    if (filter && (filter.value !== "" || (exact && exact.checked))) applyFilter();
  }
})();
