(function () {
  var table = document.getElementById("datasets");
  if (!table) return;
  var body = table.tBodies[0];
  function key(cell) {
    var v = cell.getAttribute("data-v");
    if (v === null) v = cell.textContent.trim();
    if (v === "") return null;
    var n = Number(v);
    return n === n ? n : v;  // a number, or the text where it is none
  }
  function sort(column, th) {
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[column]), y = key(b.cells[column]);
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
      } else if (x !== y) {
        if (typeof x !== typeof y) return (typeof x === "number" ? -1 : 1) * dir;
        return (x < y ? -1 : 1) * dir;
      }
      return a.getAttribute("data-order") - b.getAttribute("data-order");
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = th.textContent;
    button.title = "sort by " + th.textContent;
    th.textContent = "";
    th.appendChild(button);
    button.addEventListener("click", function () { sort(column, th); });
  });
  var box = document.getElementById("filter");
  var said = document.getElementById("filtered");
  box.parentNode.parentNode.hidden = false;
  box.addEventListener("input", function () {
    var q = box.value.trim().toLowerCase(), shown = 0;
    Array.prototype.forEach.call(body.rows, function (row) {
      var hit = !q || row.getAttribute("data-text").indexOf(q) >= 0;
      row.hidden = !hit;
      shown += hit ? 1 : 0;
      var id = row.getAttribute("data-target");
      var section = document.getElementById(id);
      if (section) section.hidden = !hit;
      var entry = document.querySelector('#contents li[data-target="' + id + '"]');
      if (entry) entry.hidden = !hit;
    });
    said.textContent = q ? shown + " of " + body.rows.length + " datasets" : "";
  });
})();
