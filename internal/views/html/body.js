// The body trend: each metric of get_body_analysis as a card, its latest
// value and change, and a line of its weekly (or monthly) means.
App.labels.en = {
  waiting: "Waiting for the answer…", nothing: "Nothing to draw.", title: "Weight and body", none: "No weigh-ins or measurements in this range.",
  weightKg: "Weight", bodyFatPct: "Body fat", waistCm: "Waist", hipsCm: "Hips", chestCm: "Chest", armCm: "Arm", thighCm: "Thigh", restingHr: "Resting heart rate",
  change: "Change", values: "values", values_1: "one value", week: "weekly means", month: "monthly means",
};
App.labels.he = {
  waiting: "ממתין לתשובה…", nothing: "אין מה להציג.", title: "משקל ומדדי גוף", none: "אין שקילות או מדידות בטווח הזה.",
  weightKg: "משקל", bodyFatPct: "אחוז שומן", waistCm: "מותניים", hipsCm: "ירכיים", chestCm: "חזה", armCm: "זרוע", thighCm: "ירך", restingHr: "דופק במנוחה",
  change: "שינוי", values: "ערכים", values_1: "ערך אחד", week: "ממוצע שבועי", month: "ממוצע חודשי",
};
App.draw = function (main, d) {
  var el = App.el;
  var head = el("header", null, el("h1", null, d.name ? [el("bdi", null, d.name), " · ", App.t("title")] : App.t("title")));
  if (d.from && d.to) {
    var long = { day: "numeric", month: "short", year: "numeric" };
    head.appendChild(el("div", { class: "sub" }, App.range(d.from, d.to, long)));
  }
  main.appendChild(head);
  var metrics = Array.isArray(d.metrics) ? d.metrics : [];
  if (!metrics.length) { main.appendChild(el("p", { class: "empty" }, App.t("none"))); return; }
  metrics.forEach(function (m) {
    var card = el("section", { class: "card metric", "data-metric": m.metric });
    card.appendChild(el("div", { class: "row" },
      el("h2", null, App.t(m.metric)),
      el("span", { class: "big" }, App.num(m.latest && m.latest.value, m.unit, 1))));
    card.appendChild(el("div", { class: "row sub" },
      el("span", null, App.t("change"), " ", el("strong", null, App.num(m.change, m.unit, 1, true))),
      el("span", null, App.count(m.count, "values"), " · ", App.t(m.trendBy === "month" ? "month" : "week"))));
    var trend = Array.isArray(m.trend) ? m.trend : [];
    if (trend.length) {
      card.appendChild(App.lineChart(trend.map(function (p) {
        return { label: App.day(p.from, m.trendBy === "month" ? { month: "short", year: "2-digit" } : undefined), value: p.value };
      }), { unit: m.unit, label: App.t(m.metric) }));
    }
    main.appendChild(card);
  });
};
App.start("body");
