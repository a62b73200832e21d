// Who needs attention: needs_attention's ranked list, most urgent first,
// each trainee with a bar of the score and the reasons behind it.
App.labels.en = {
  waiting: "Waiting for the answer…", nothing: "Nothing to draw.", title: "Who needs attention", none: "Nobody needs attention now.", score: "score", of: "of",
  low_readiness: "Low readiness", active_injury: "Injury", plan_ended: "Plan ended", no_recent_session: "No recent session", missed_sessions: "Missed sessions",
  plan_ending: "Plan ending", weight_off_goal: "Weight off goal", overdue_tasks: "Overdue tasks", form_past_due: "Form past due", feedback: "Feedback",
};
App.labels.he = {
  waiting: "ממתין לתשובה…", nothing: "אין מה להציג.", title: "מי צריך תשומת לב", none: "אף אחד לא צריך תשומת לב כרגע.", score: "ציון", of: "מתוך",
  low_readiness: "מוכנות נמוכה", active_injury: "פציעה", plan_ended: "המנוי הסתיים", no_recent_session: "אין אימון לאחרונה", missed_sessions: "אימונים שהוחמצו",
  plan_ending: "המנוי מסתיים", weight_off_goal: "משקל מתרחק מהיעד", overdue_tasks: "משימות באיחור", form_past_due: "טופס באיחור", feedback: "משוב",
};
App.draw = function (main, d) {
  var el = App.el;
  var items = Array.isArray(d.items) ? d.items : [];
  main.appendChild(el("header", null, el("h1", null, App.t("title")),
    d.summary ? el("div", { class: "sub summary", dir: "auto" }, d.summary) : null));
  if (!items.length) { main.appendChild(el("p", { class: "empty" }, App.t("none"))); return; }
  var top = Math.max.apply(null, items.map(function (a) { return a.score || 0; })) || 1;
  var list = el("ol", { class: "plain" });
  items.forEach(function (a, i) {
    var reasons = Array.isArray(a.reasons) ? a.reasons : [];
    var li = el("li", { class: "card trainee", "data-score": a.score },
      el("div", { class: "row" },
        el("h2", null, el("span", { class: "num rank", dir: "ltr" }, String(i + 1) + "."), el("bdi", { class: "name" }, [a.firstName, a.lastName].filter(Boolean).join(" "))),
        el("span", { class: "sub" }, App.t("score"), " ", App.num(a.score, "", 0))),
      el("div", { class: "bar", style: "height:6px;border-radius:3px;background:var(--line);margin:4px 0 6px" },
        el("div", { style: "height:6px;border-radius:3px;background:var(--warn);width:" + Math.round(100 * (a.score || 0) / top) + "%" })));
    var chips = el("div", { class: "reasons" });
    reasons.forEach(function (r) { chips.appendChild(el("span", { class: "chip reason", "data-code": r.code, title: r.message || "" }, App.t(r.code))); });
    li.appendChild(chips);
    reasons.forEach(function (r) { if (r.message) li.appendChild(el("div", { class: "sub", dir: "auto" }, r.message)); });
    list.appendChild(li);
  });
  main.appendChild(list);
  if (d.total > items.length) main.appendChild(el("p", { class: "sub" }, App.num(items.length, "", 0), " ", App.t("of"), " ", App.num(d.total, "", 0)));
};
App.start("triage");
