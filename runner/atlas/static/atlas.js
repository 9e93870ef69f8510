// The grid's filters (index.html): framework, device, verdict and function name, also set from the page's
// query (index.html?function=torch.cat). Nothing to do on the other pages.
document.addEventListener('DOMContentLoaded', function () {
  var form = document.getElementById('filters');
  if (!form) { return; }
  var field = function (name) { return document.getElementById('f-' + name); };
  var query = new URLSearchParams(location.search);
  ['framework', 'device', 'verdict', 'function'].forEach(function (name) {
    if (query.has(name)) { field(name).value = query.get(name); }
  });

  function apply() {
    var framework = field('framework').value, device = field('device').value;
    var verdict = field('verdict').value, name = field('function').value.trim().toLowerCase();
    var shown = 0, total = 0;
    document.querySelectorAll('section.framework').forEach(function (section) {
      var inFramework = !framework || section.dataset.framework === framework;
      section.hidden = !inFramework;
      var heads = section.querySelectorAll('thead th');
      var visible = Array.prototype.map.call(heads, function (th) {
        return !th.dataset.device || !device || th.dataset.device === device;
      });
      heads.forEach(function (th, i) { th.hidden = !visible[i]; });
      section.querySelectorAll('tbody tr').forEach(function (row) {
        total += 1;
        var cells = row.children, keep = inFramework;
        for (var i = 0; i < cells.length; i++) { cells[i].hidden = !visible[i]; }
        if (keep && name) { keep = row.dataset.function.toLowerCase().indexOf(name) >= 0; }
        if (keep && verdict) {
          keep = Array.prototype.some.call(cells, function (td, i) {
            return visible[i] && td.classList.contains('v-' + verdict);
          });
        }
        row.hidden = !keep;
        if (keep) { shown += 1; }
      });
    });
    document.getElementById('f-count').textContent = shown + ' of ' + total + ' functions shown';
  }
  form.addEventListener('input', apply);
  form.addEventListener('change', apply);
  apply();
});
