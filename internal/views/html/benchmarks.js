// Benchmark progress: each benchmark of get_trainee_benchmarks (or a
// trainee's get_benchmarks) as a card, its best and latest, and a line of
// its recent values with each personal record ringed.
App.labels.en = {
  waiting: "Waiting for the answer…", nothing: "Nothing to draw.", title: "Benchmarks", none: "No benchmarks yet.",
  best: "Best", latest: "Latest", pr: "personal record", prs: "PRs", weeks4: "4 weeks", weeks12: "12 weeks", lower: "lower is better", of: "of",
};
App.labels.he = {
  waiting: "ממתין לתשובה…", nothing: "אין מה להציג.", title: "מדדי ביצוע", none: "אין עדיין מדדים.",
  best: "שיא", latest: "אחרון", pr: "שיא אישי", prs: "שיאים", weeks4: "4 שבועות", weeks12: "12 שבועות", lower: "נמוך יותר עדיף", of: "מתוך",
};
// A time in seconds reads m:ss; anything else is a number with its unit.
function bmValue(v, unit, signed) {
  if (unit === "s" && v !== null && v !== undefined && Math.abs(v) >= 60) {
    var a = Math.abs(Math.round(v)), s = a % 60;
    var text = (v < 0 ? "−" : signed && v > 0 ? "+" : "") + Math.floor(a / 60) + ":" + (s < 10 ? "0" : "") + s;
    return App.el("span", { class: "num", dir: "ltr" }, text);
  }
  return App.num(v, unit, 2, signed);
}
App.draw = function (main, d) {
  var el = App.el;
  var items = Array.isArray(d.items) ? d.items : [];
  main.appendChild(el("header", null, el("h1", null, App.t("title")),
    el("div", { class: "sub" }, el("span", { class: "legend", "aria-hidden": "true" }, "◯ "), App.t("pr"),
      d.total !== undefined && d.total > items.length ? [" · ", App.num(items.length, ""), " ", App.t("of"), " ", App.num(d.total, "")] : null)));
  if (!items.length) { main.appendChild(el("p", { class: "empty" }, App.t("none"))); return; }
  items.forEach(function (b) {
    var card = el("section", { class: "card benchmark" });
    card.appendChild(el("div", { class: "row" },
      el("h2", { class: "name" }, el("bdi", null, b.name)),
      el("span", { class: "big" }, bmValue(b.best && b.best.value, b.unit))));
    var recent = (Array.isArray(b.recent) ? b.recent : []).slice().reverse(); // oldest first
    var prCount = recent.filter(function (e) { return e.pr; }).length;
    var c4 = b.change4Weeks, c12 = b.change12Weeks;
    var better = function (c) { return c === null || c === undefined || c === 0 ? "flat" : (c > 0) === (b.direction !== "lower") ? "up" : "down"; };
    card.appendChild(el("div", { class: "row sub" },
      el("span", null, App.t("latest"), " ", bmValue(b.latest && b.latest.value, b.unit)),
      c4 !== null && c4 !== undefined ? el("span", null, App.t("weeks4"), " ", el("span", { class: better(c4) }, bmValue(c4, b.unit, true))) : null,
      c12 !== null && c12 !== undefined ? el("span", null, App.t("weeks12"), " ", el("span", { class: better(c12) }, bmValue(c12, b.unit, true))) : null,
      prCount ? el("span", { class: "chip" }, App.t("prs"), " ", App.num(prCount, "")) : null,
      b.direction === "lower" ? el("span", null, App.t("lower")) : null));
    if (recent.length) {
      card.appendChild(App.lineChart(recent.map(function (e) {
        return { label: App.day(e.recordedAt), value: e.value, pr: !!e.pr };
      }), { unit: b.unit, label: b.name }));
    }
    main.appendChild(card);
  });
};
App.start("benchmarks");
