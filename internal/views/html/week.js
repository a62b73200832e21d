// The week: get_weekly_debrief's sessions by day, planned against done, the
// week's counts, volume and time against the week before, PRs and flags.
App.labels.en = {
  waiting: "Waiting for the answer…", nothing: "Nothing to draw.", title: "The week", done: "done", planned: "planned",
  missed: "missed", skipped: "skipped", remaining: "to come", volume: "Volume", minutes: "Time", prs: "Personal records", flags: "To look at",
  completed: "done", planned_s: "planned", of: "of", min: "min", vsBefore: "vs the week before", none: "No sessions this week.",
};
// In English a flag reads as the answer's sentence; in Hebrew the view
// says it from the sentence's parts (its days, titles and numbers), so the
// Hebrew page holds no English beyond what people typed (a title).
var FLAGS_HE = {
  missed_sessions: function (m) {
    var x = /^(\d+) sessions? missed: (.*)\.$/.exec(m);
    if (!x) return null;
    var n = +x[1], list = [];
    x[2].replace(/(\d{4}-\d{2}-\d{2}) (.*?)(?=, \d{4}-\d{2}-\d{2} |$)/g, function (_, day, title) {
      list.push([list.length ? ", " : "", App.day(day, { weekday: "short", day: "numeric", month: "short" }), title ? [" ", App.el("bdi", null, title)] : ""]);
    });
    return [n === 1 ? "אימון אחד הוחמץ" : [App.num(n, "", 0), " אימונים הוחמצו"], ": ", list, "."];
  },
  low_readiness: function (m) {
    var x = /^Readiness (\d+) or lower (\d+) days running: (.*)\.$/.exec(m);
    if (!x) return null;
    var days = x[3].split(", ").map(function (p, i) {
      var dv = p.split(" ");
      return [i ? ", " : "", App.day(dv[0]), " ", App.num(+dv[1], "", 0)];
    });
    return ["מוכנות ", App.num(+x[1], "", 0), " ומטה ", App.num(+x[2], "", 0), " ימים ברצף: ", days, "."];
  },
  active_injury: function (m) {
    var x = /^Active injury: ([a-z_]+) \(([a-z]*)\), severity (\d)\/5, since (\d{4}-\d{2}-\d{2})\.$/.exec(m);
    if (!x) return null;
    var side = App.SIDES_HE[x[2]];
    return ["פציעה פעילה: ", App.AREAS_HE[x[1]] || x[1], side ? " (" + side + ")" : "", ", חומרה ",
      App.el("span", { class: "num", dir: "ltr" }, x[3] + "/5"), ", מאז ", App.day(x[4]), "."];
  },
};
function flagLine(f) {
  var say = App.lang() === "he" && FLAGS_HE[f.kind] && FLAGS_HE[f.kind](String(f.message || ""));
  if (say) return App.el("li", { class: "flag", dir: "rtl", "data-kind": f.kind }, say);
  if (App.lang() === "he") return App.el("li", { class: "flag", "data-kind": f.kind }, App.t(f.kind) || f.kind, ": ", App.el("bdi", { lang: "en" }, f.message));
  return App.el("li", { class: "flag", dir: "auto", "data-kind": f.kind }, f.message);
}
App.labels.he = {
  waiting: "ממתין לתשובה…", nothing: "אין מה להציג.", title: "השבוע", done: "בוצעו", planned: "מתוכננים",
  missed: "הוחמצו", skipped: "דולגו", remaining: "נותרו", volume: "נפח", minutes: "זמן", prs: "שיאים אישיים", flags: "לתשומת לב",
  completed: "בוצע", planned_s: "מתוכנן", of: "מתוך", min: "דק׳", vsBefore: "לעומת השבוע הקודם", none: "אין אימונים השבוע.",
  missed_1: "אימון אחד הוחמץ", skipped_1: "אימון אחד דולג", remaining_1: "אימון אחד נותר",
  missed_sessions: "אימונים שהוחמצו", low_readiness: "מוכנות נמוכה", active_injury: "פציעה פעילה",
};
App.draw = function (main, d) {
  var el = App.el, svg = App.svg;
  main.appendChild(el("header", null,
    el("h1", null, App.t("title"), " ", el("span", { class: "num", dir: "ltr" }, d.week || "")),
    d.from && d.to ? el("div", { class: "sub" }, App.range(d.from, d.to)) : null));

  // A week with nothing planned has no counts to give: it says so once, below.
  if (d.planned || d.completed) {
    var counts = el("div", { class: "card row counts" },
      el("span", { class: "big" }, App.num(d.completed, "", 0), " ", App.t("of"), " ", App.num(d.planned, "", 0), " ", App.t("done")));
    [["missed", d.missed], ["skipped", d.skipped], ["remaining", d.remaining]].forEach(function (x) {
      if (x[1]) counts.appendChild(el("span", { class: "chip" }, App.count(x[1], x[0])));
    });
    main.appendChild(counts);
  }

  // Seven days from the week's first day (the studio's): a bar per day, planned (outline) and done (filled).
  var days = [], byDay = {};
  var sessions = Array.isArray(d.sessions) ? d.sessions : [];
  var start = new Date((d.from || "1970-01-05") + "T12:00:00Z");
  for (var i = 0; i < 7; i++) {
    var iso = new Date(start.getTime() + i * 86400000).toISOString().slice(0, 10);
    days.push(iso); byDay[iso] = { planned: 0, done: 0, sessions: [] };
  }
  sessions.forEach(function (s) {
    var b = byDay[s.date];
    if (!b) return;
    b.planned++; if (s.status === "completed") b.done++;
    b.sessions.push(s);
  });
  var most = Math.max(1, Math.max.apply(null, days.map(function (x) { return byDay[x].planned; })));
  var W = 320, H = 130, colW = W / 7, barW = 22, base = H - 34;
  var chart = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", dir: "ltr", class: "days" });
  chart.appendChild(svg("line", { class: "grid", x1: 0, x2: W, y1: base, y2: base }));
  days.forEach(function (iso, i) {
    // Left to right is the week's first day to its last in English; in a right-to-left
    // language the week runs from the right.
    var col = App.rtl ? 6 - i : i;
    var cx = col * colW + colW / 2, b = byDay[iso];
    var h = function (n) { return n * (base - 8) / most; };
    var g = svg("g", { class: "day", "data-day": iso, "data-planned": b.planned, "data-done": b.done });
    if (b.planned) g.appendChild(svg("rect", { class: "planned", x: cx - barW / 2, y: base - h(b.planned), width: barW, height: h(b.planned), rx: 3, fill: "none", stroke: "var(--fg2)", "stroke-dasharray": "3 2" }));
    if (b.done) g.appendChild(svg("rect", { class: "done", x: cx - barW / 2, y: base - h(b.done), width: barW, height: h(b.done), rx: 3, fill: "var(--good)" }));
    g.appendChild(svg("text", { x: cx, y: base + 14, "text-anchor": "middle" }, App.day(iso, { weekday: "short" })));
    g.appendChild(svg("text", { x: cx, y: base + 28, "text-anchor": "middle", class: "count" }, b.planned ? b.done + "/" + b.planned : "–"));
    chart.appendChild(g);
  });
  main.appendChild(el("section", { class: "card" }, chart));

  if (!sessions.length) main.appendChild(el("p", { class: "empty" }, App.t("none")));
  else {
    var list = el("ul", { class: "plain card sessions" });
    sessions.forEach(function (s) {
      var status = s.status === "completed" ? "✓" : s.status === "planned" ? "○" : "✕";
      list.appendChild(el("li", { class: "row session", "data-status": s.status },
        el("span", null, el("span", { "aria-hidden": "true" }, status + " "), el("bdi", { class: "title" }, s.title || s.sport || "")),
        el("span", { class: "sub" }, App.day(s.date, { weekday: "short", day: "numeric" }),
          s.durationMin ? [" · ", App.num(s.durationMin, App.t("min"), 0)] : null)));
    });
    main.appendChild(list);
  }

  var figures = el("section", { class: "card row" });
  [["volume", d.volumeKg, "kg"], ["minutes", d.minutes, App.t("min")]].forEach(function (f) {
    if (!f[1]) return;
    var ch = f[1].changePct;
    figures.appendChild(el("span", null, App.t(f[0]), " ", el("strong", null, App.num(f[1].week, f[2], 0)),
      ch !== null && ch !== undefined ? [" ", el("span", { class: ch > 0 ? "up" : ch < 0 ? "down" : "flat" }, App.num(ch, "%", 1, true))] : null));
  });
  if (figures.childNodes.length) { figures.appendChild(el("span", { class: "sub" }, App.t("vsBefore"))); main.appendChild(figures); }

  var prs = Array.isArray(d.prs) ? d.prs : [];
  if (prs.length) {
    var pl = el("ul", { class: "plain" });
    prs.forEach(function (p) {
      pl.appendChild(el("li", { class: "row pr" }, el("span", { class: "name" }, "★ ", el("bdi", null, p.name)), App.num(p.value, p.unit, 2)));
    });
    main.appendChild(el("section", { class: "card" }, el("h2", null, App.t("prs")), pl));
  }
  var flags = Array.isArray(d.flags) ? d.flags : [];
  if (flags.length) {
    var fl = el("ul", { class: "plain" });
    flags.forEach(function (f) { fl.appendChild(flagLine(f)); });
    main.appendChild(el("section", { class: "card" }, el("h2", null, App.t("flags")), fl));
  }
};
App.start("week");
