// Who needs attention: needs_attention's ranked list, most urgent first,
// each trainee with a bar of the score and the reasons behind it.
App.labels.en = {
  waiting: "Waiting for the answer…", nothing: "Nothing to draw.", title: "Who needs attention", none: "Nobody needs attention now.", score: "score", of: "of",
  low_readiness: "Low readiness", active_injury: "Injury", plan_ended: "Plan ended", no_recent_session: "No recent session", missed_sessions: "Missed sessions",
  plan_ending: "Plan ending", weight_off_goal: "Weight off goal", overdue_tasks: "Overdue tasks", form_past_due: "Form past due", feedback: "Feedback",
  owes: "Owes", package_ends: "Package ending", no_credits: "No sessions left", no_show: "No-show", payment_failed: "Payment failed",
};
App.labels.he = {
  waiting: "ממתין לתשובה…", nothing: "אין מה להציג.", title: "מי צריך תשומת לב", none: "אף אחד לא צריך תשומת לב כרגע.", score: "ציון", of: "מתוך",
  low_readiness: "מוכנות נמוכה", active_injury: "פציעה", plan_ended: "המנוי הסתיים", no_recent_session: "אין אימון לאחרונה", missed_sessions: "אימונים שהוחמצו",
  plan_ending: "המנוי מסתיים", weight_off_goal: "משקל מתרחק מהיעד", overdue_tasks: "משימות באיחור", form_past_due: "טופס באיחור", feedback: "משוב",
  owes: "חוב", package_ends: "החבילה מסתיימת", no_credits: "לא נשארו אימונים", no_show: "לא הגיע/ה", payment_failed: "תשלום נכשל",
};
// In English a reason reads as the lane's sentence (message); in Hebrew
// the view says it from the reason's numbers, so a coach reading in Hebrew
// sees no English beyond what people typed (a feedback's quote).
function count(n, one, many) { return n === 1 ? one : [App.num(n, "", 0), " ", many]; }
// quoteOf is the feedback's own words, quoted at the end of the lane's
// sentence (Go's %q, which JSON reads for what people type).
function quoteOf(message) {
  var m = /: ("(?:[^"\\]|\\.)*")\.$/.exec(message || "");
  if (!m) return null;
  try { return JSON.parse(m[1]); } catch (e) { return m[1]; }
}
// money is an amount the lane gives in major units of currency.
function money(v, currency) {
  var sign = { ILS: "₪", USD: "$", EUR: "€", GBP: "£" }[currency];
  return App.el("span", { class: "num", dir: "ltr" }, (sign || (currency ? currency + " " : "")) + App.fmt(v, 2));
}
var SAY_HE = {
  low_readiness: function (n) {
    var days = (Array.isArray(n.readiness) ? n.readiness : []).map(function (v, i) { return [i ? ", " : "", App.day(v.day), " ", App.num(v.value, "", 1)]; });
    return ["מוכנות 4 ומטה ", App.num(n.days, "", 0), " ימים ברצף: ", days, "."];
  },
  active_injury: function (n) {
    var side = App.SIDES_HE[n.side];
    return ["פציעה פעילה: ", App.AREAS_HE[n.area] || n.area, side ? " (" + side + ")" : "", ", חומרה ", App.el("span", { class: "num", dir: "ltr" }, n.severity + "/5"),
      ", מאז ", App.day(n.onsetOn), " (", count(n.days, "יום אחד", "ימים"), ")."];
  },
  plan_ended: function (n) { return ["המנוי הסתיים ב-", App.day(n.endsOn), " (לפני ", count(n.daysAgo, "יום אחד", "ימים"), ") ולא חודש."]; },
  plan_ending: function (n) { return ["המנוי מסתיים ב-", App.day(n.endsOn), " (", n.daysLeft === 0 ? "היום" : ["בעוד ", count(n.daysLeft, "יום אחד", "ימים")], ") ועדיין לא חודש."]; },
  no_recent_session: function (n) {
    if (!n.lastCompletedOn) return "יש תוכנית פעילה ועדיין לא הושלם אף אימון.";
    return ["יש תוכנית פעילה, והאימון האחרון הושלם ב-", App.day(n.lastCompletedOn), ", לפני ", count(n.days, "יום אחד", "ימים"), "."];
  },
  missed_sessions: function (n) { return [count(n.missed, "אימון אחד הוחמץ", "אימונים הוחמצו"), " השבוע."]; },
  weight_off_goal: function (n) {
    var avgs = (Array.isArray(n.weeklyAveragesKg) ? n.weeklyAveragesKg : []).map(function (v, i) { return [i ? ", " : "", App.num(v, "", 1)]; });
    return ["המשקל מתרחק מהיעד של ", App.num(n.goalKg, "kg", 1), " כבר 3 שבועות: ממוצעים שבועיים ", avgs, " ", App.unit("kg"), "."];
  },
  overdue_tasks: function (n) { return [count(n.overdue, "משימה אחת", "משימות"), " באיחור."]; },
  form_past_due: function (n) { return [count(n.pastDue, "טופס אחד", "טפסים"), " באיחור."]; },
  owes: function (n) {
    var owed = n.owed && typeof n.owed === "object" ? Object.keys(n.owed).sort() : [];
    return ["חוב של ", owed.map(function (c, i) { return [i ? " ו-" : "", money(n.owed[c], c)]; }), " שמועד תשלומו עבר ב-", App.day(n.dueSince), "."];
  },
  package_ends: function (n) {
    return [count(n.sessionsLeft, "נשאר אימון אחד", "אימונים נשארו"), " בחבילה", n.expiresOn ? [", והיא מסתיימת ב-", App.day(n.expiresOn)] : "", "."];
  },
  no_credits: function (n) { return ["לא נשארו אימונים: ", count(n.sessionsUsed, "אימון אחד נוצל", "אימונים נוצלו"), "."]; },
  no_show: function (n) { return ["לא הגיע/ה בלי לבטל ", count(n.noShows, "פעם אחת", "פעמים"), " ב-", App.num(n.days, "", 0), " הימים האחרונים."]; },
  payment_failed: function (n) { return ["תשלום של ", money(n.amount, ""), " נכשל ב-", App.day(n.failedOn), ", ולא הגיע תשלום מאז."]; },
  feedback: function (n, r) {
    var quote = quoteOf(r.message);
    return [count(n.count, "משוב אחד", "משובים"), " לסטודיו ב-7 הימים האחרונים; האחרון ב-", App.day(n.latestOn),
      n.rating ? [" (דירוג ", App.el("span", { class: "num", dir: "ltr" }, n.rating + "/5"), ")"] : "",
      quote ? [": ", App.el("q", null, App.el("bdi", { class: "quote" }, quote))] : "", quote ? "" : "."];
  },
};
var CODES = ["low_readiness", "active_injury", "plan_ended", "no_recent_session", "missed_sessions", "plan_ending", "weight_off_goal", "overdue_tasks", "form_past_due", "feedback",
  "owes", "package_ends", "no_credits", "no_show", "payment_failed"];
function reasonLine(r) {
  var say = App.lang() === "he" && r.numbers && SAY_HE[r.code];
  return App.el("div", { class: "sub why", dir: say ? "rtl" : "auto" }, say ? say(r.numbers, r) : r.message);
}
function summary(d) {
  if (App.lang() !== "he" || typeof d.activeTrainees !== "number" || typeof d.total !== "number") return d.summary;
  if (!d.total) {
    if (d.activeTrainees === 0) return "אין כרגע מתאמנים פעילים.";
    if (d.activeTrainees === 1) return "אין כרגע צורך בתשומת לב (מתאמן/ת פעיל/ה אחד/ת).";
    return ["אף אחד מ-", App.num(d.activeTrainees, "", 0), " המתאמנים הפעילים לא צריך תשומת לב כרגע."];
  }
  var counts = d.counts && typeof d.counts === "object" ? d.counts : {};
  var parts = CODES.filter(function (code) { return counts[code] > 0; })
    .map(function (code, i) { return [i ? ", " : "", App.t(code), " ", App.num(counts[code], "", 0)]; });
  return [App.num(d.total, "", 0), " מתוך ", App.num(d.activeTrainees, "", 0), " המתאמנים הפעילים צריכים תשומת לב", parts.length ? [" (", parts, ")"] : "", "."];
}
App.draw = function (main, d) {
  var el = App.el;
  var items = Array.isArray(d.items) ? d.items : [];
  var sum = summary(d);
  main.appendChild(el("header", null, el("h1", null, App.t("title")),
    sum ? el("div", { class: "sub summary", dir: "auto" }, sum) : null));
  // Nobody to list: the summary, when there is one, already says so.
  if (!items.length) { if (!sum) main.appendChild(el("p", { class: "empty" }, App.t("none"))); return; }
  var top = Math.max.apply(null, items.map(function (a) { return a.score || 0; })) || 1;
  var list = el("ol", { class: "plain" });
  items.forEach(function (a, i) {
    var reasons = Array.isArray(a.reasons) ? a.reasons : [];
    var li = el("li", { class: "card trainee", "data-score": a.score },
      el("div", { class: "row" },
        el("h2", null, el("span", { class: "num rank", dir: "ltr" }, String(i + 1) + "."), " ", el("bdi", { class: "name" }, [a.firstName, a.lastName].filter(Boolean).join(" "))),
        el("span", { class: "sub" }, App.t("score"), " ", App.num(a.score, "", 0))),
      el("div", { class: "bar", style: "height:6px;border-radius:3px;background:var(--line);margin:4px 0 6px" },
        el("div", { style: "height:6px;border-radius:3px;background:var(--warn);width:" + Math.round(100 * (a.score || 0) / top) + "%" })));
    var chips = el("div", { class: "reasons" });
    reasons.forEach(function (r) { chips.appendChild(el("span", { class: "chip reason", "data-code": r.code, title: App.lang() === "he" ? null : r.message || null }, App.t(r.code))); });
    li.appendChild(chips);
    reasons.forEach(function (r) { if (r.message) li.appendChild(reasonLine(r)); });
    list.appendChild(li);
  });
  main.appendChild(list);
  if (d.total > items.length) main.appendChild(el("p", { class: "sub" }, App.num(items.length, "", 0), " ", App.t("of"), " ", App.num(d.total, "", 0)));
};
App.start("triage");
