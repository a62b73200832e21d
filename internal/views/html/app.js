"use strict";
// The MCP Apps side every view shares: the handshake with the host over
// postMessage (JSON-RPC 2.0), the host's theme, style variables and locale,
// and helpers that build the page from data as text only (never HTML).
var App = {
  locale: "en-US", rtl: false, result: null, input: null, draw: null, labels: { en: {}, he: {} },
};
(function () {
  var nextId = 1, pending = {};
  function send(msg) { window.parent.postMessage(msg, "*"); }
  function request(method, params) {
    var id = nextId++;
    send({ jsonrpc: "2.0", id: id, method: method, params: params });
    return new Promise(function (resolve, reject) { pending[id] = { resolve: resolve, reject: reject }; });
  }
  function notify(method, params) { send({ jsonrpc: "2.0", method: method, params: params || {} }); }
  App.notify = notify;

  function applyContext(ctx) {
    if (!ctx || typeof ctx !== "object") return;
    var root = document.documentElement;
    if (ctx.theme === "dark" || ctx.theme === "light") { root.setAttribute("data-theme", ctx.theme); root.style.colorScheme = ctx.theme; }
    var vars = ctx.styles && ctx.styles.variables;
    if (vars && typeof vars === "object") {
      Object.keys(vars).forEach(function (k) {
        if (/^--[a-z0-9-]+$/i.test(k) && typeof vars[k] === "string") root.style.setProperty(k, vars[k]);
      });
    }
    if (typeof ctx.locale === "string" && ctx.locale) {
      App.locale = ctx.locale;
      var lang = ctx.locale.toLowerCase().split(/[-_]/)[0];
      App.rtl = ["he", "iw", "ar", "fa", "ur", "yi"].indexOf(lang) >= 0;
      root.lang = ctx.locale;
      root.dir = App.rtl ? "rtl" : "ltr";
    }
  }

  window.addEventListener("message", function (ev) {
    if (ev.source !== window.parent) return;
    var m = ev.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.id !== undefined && m.method === undefined) {
      var p = pending[m.id];
      if (p) { delete pending[m.id]; if (m.error) p.reject(m.error); else p.resolve(m.result); }
      return;
    }
    switch (m.method) {
      case "ui/notifications/tool-input":
        App.input = (m.params && m.params.arguments) || null;
        break;
      case "ui/notifications/tool-result":
        App.result = m.params || null;
        render();
        break;
      case "ui/notifications/host-context-changed":
        applyContext(m.params);
        render();
        break;
      case "ui/resource-teardown":
      case "ping":
        if (m.id !== undefined) send({ jsonrpc: "2.0", id: m.id, result: {} });
        break;
      default:
        if (m.id !== undefined) send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
    }
  });

  // The data a view draws: the result's structuredContent, else its first
  // text content read as JSON.
  App.data = function () {
    var r = App.result;
    if (!r) return null;
    if (r.structuredContent && typeof r.structuredContent === "object") return r.structuredContent;
    var c = (r.content || []).filter(function (x) { return x && x.type === "text"; })[0];
    if (!c) return null;
    try { return JSON.parse(c.text); } catch (e) { return null; }
  };

  function render() {
    var main = document.getElementById("app");
    while (main.firstChild) main.removeChild(main.firstChild);
    if (!App.result) { main.appendChild(App.el("p", { class: "empty" }, App.t("waiting"))); return; }
    if (App.result.isError) {
      // The server's sentence is English; a page in another language says
      // so in its own words, and the sentence follows, isolated, in English.
      var msg = (App.result.content || []).map(function (c) { return c.text || ""; }).join(" ");
      if (App.lang() === "en") main.appendChild(App.el("p", { class: "error" }, msg));
      else main.appendChild(App.el("div", { class: "error" }, App.el("p", null, App.t("failed")),
        msg ? App.el("p", { lang: "en", dir: "ltr", class: "detail" }, msg) : null));
      size();
      return;
    }
    var data = App.data();
    if (!data) { main.appendChild(App.el("p", { class: "empty" }, App.t("nothing"))); size(); return; }
    App.draw(main, data);
    size();
  }
  App.render = render;

  function size() {
    var d = document.documentElement;
    notify("ui/notifications/size-changed", { width: Math.ceil(d.scrollWidth), height: Math.ceil(d.scrollHeight) });
  }

  App.start = function (name) {
    render();
    request("ui/initialize", {
      protocolVersion: "2026-01-26",
      appInfo: { name: "perform-" + name, version: "1" },
      appCapabilities: { availableDisplayModes: ["inline"] },
    }).then(function (res) {
      applyContext(res && res.hostContext);
      notify("ui/notifications/initialized", {});
      render();
    }, function () { render(); });
  };

  // Text of a label in the locale's language, else English, else the key.
  // The locale's language: "he" of he-IL.
  App.lang = function () { return App.locale.toLowerCase().split(/[-_]/)[0]; };
  // Labels every view shares; a view's own labels come first.
  var COMMON = {
    en: { failed: "The request failed:", waiting: "Waiting for the answer…", nothing: "Nothing to draw." },
    he: { failed: "הבקשה נכשלה. הסבר השרת, באנגלית:", waiting: "ממתין לתשובה…", nothing: "אין מה להציג." },
  };
  function label(lang, key) {
    var own = App.labels[lang], common = COMMON[lang];
    if (own && own[key] !== undefined) return own[key];
    if (common && common[key] !== undefined) return common[key];
    return undefined;
  }
  App.t = function (key) {
    var v = label(App.lang(), key);
    if (v === undefined) v = label("en", key);
    return v === undefined ? key : v;
  };
  // A count and its noun, in the locale's language: the label key_1 when
  // n is 1 and the language has one ("ערך אחד"), else the number and the
  // label key ("3 ערכים", "0 values").
  App.count = function (n, key) {
    var one = label(App.lang(), key + "_1");
    if (n === 1 && one !== undefined) return one;
    return [App.num(n, "", 0), " ", App.t(key)];
  };
  // Where a person's words (a quote, a name) sit inside a sentence of
  // another direction, they are isolated: an element in <bdi>, plain text
  // (a title, a label) between FSI and PDI.
  App.isolate = function (s) { return "\u2068" + String(s) + "\u2069"; };

  // el builds an element; each child is a node or text (set as text, never
  // parsed as HTML).
  App.el = function (tag, attrs) {
    var n = document.createElement(tag);
    setAttrs(n, attrs);
    for (var i = 2; i < arguments.length; i++) append(n, arguments[i]);
    return n;
  };
  App.svg = function (tag, attrs) {
    var n = document.createElementNS("http://www.w3.org/2000/svg", tag);
    setAttrs(n, attrs);
    for (var i = 2; i < arguments.length; i++) append(n, arguments[i]);
    return n;
  };
  function setAttrs(n, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) { if (attrs[k] !== undefined && attrs[k] !== null) n.setAttribute(k, String(attrs[k])); });
  }
  function append(n, c) {
    if (c === undefined || c === null || c === false) return;
    if (Array.isArray(c)) { c.forEach(function (x) { append(n, x); }); return; }
    n.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }

  // A number, formatted in the locale, isolated left to right. One
  // decimal unless told: the answers' own rounding (67.8, −0.5%).
  App.fmt = function (v, digits) {
    if (v === null || v === undefined || isNaN(v)) return "–";
    return new Intl.NumberFormat(App.locale, { maximumFractionDigits: digits === undefined ? 1 : digits }).format(v);
  };
  // The number is isolated left to right; its unit, in the locale's
  // language, follows it in the page's direction (in Hebrew "80 ק״ג"
  // reads number first, from the right).
  App.num = function (v, unit, digits, signed) {
    var s = App.fmt(v, digits);
    if (signed && v > 0) s = "+" + s;
    // A sign such as % stays with the number, left to right in any
    // language, written as the answers write it: −0.5%, 3/5.
    if (unit && !/[\p{L}]/u.test(unit)) return App.el("span", { class: "num", dir: "ltr" }, s + (unit === "%" ? "" : " ") + unit);
    var n = App.el("span", { class: "num", dir: "ltr" }, s);
    return unit ? App.el("span", { class: "qty" }, n, " " + App.unit(unit)) : n;
  };
  // Body areas and sides in Hebrew (an injury's, in the triage and the week).
  App.AREAS_HE = {
    neck: "צוואר", shoulder: "כתף", upper_back: "גב עליון", lower_back: "גב תחתון", chest: "חזה", elbow: "מרפק", wrist: "שורש כף היד",
    hand: "כף יד", abdomen: "בטן", hip: "מפרק הירך", groin: "מפשעה", glute: "ישבן", hamstring: "המסטרינג", quadriceps: "ארבע ראשי",
    knee: "ברך", calf: "שריר התאומים", shin: "שוק", ankle: "קרסול", foot: "כף רגל",
  };
  App.SIDES_HE = { left: "שמאל", right: "ימין", both: "שני הצדדים" };
  var UNITS = { he: { kg: "ק״ג", cm: "ס״מ", km: "ק״מ", m: "מ׳", s: "שנ׳", lb: "ליברות", bpm: "פעימות לדקה", reps: "חזרות" } };
  App.unit = function (u) {
    var table = UNITS[App.lang()] || {};
    return table[u] || u;
  };
  // A range of two days, each isolated, in the page's direction.
  App.range = function (from, to, opts) {
    return App.el("span", { class: "range" }, App.el("bdi", null, App.day(from, opts)), " – ", App.el("bdi", null, App.day(to, opts)));
  };
  App.day = function (iso, opts) {
    var d = new Date(String(iso).length === 10 ? iso + "T12:00:00Z" : iso);
    if (isNaN(d)) return String(iso);
    return new Intl.DateTimeFormat(App.locale, Object.assign({ timeZone: "UTC" }, opts || { day: "numeric", month: "short" })).format(d);
  };

  // A line chart of points {label, value, pr} oldest first, drawn left to
  // right whatever the page's direction: circles (.pt) on a line, a ring
  // (.pr) on each personal record, the first and last labels below.
  App.lineChart = function (points, opts) {
    opts = opts || {};
    var W = 320, H = opts.height || 110, padX = 10, padTop = 10, padBottom = 22;
    var vals = points.map(function (p) { return p.value; });
    var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
    if (hi === lo) { hi += 1; lo -= 1; }
    var x = function (i) { return points.length === 1 ? W / 2 : padX + i * (W - 2 * padX) / (points.length - 1); };
    var y = function (v) { return padTop + (hi - v) * (H - padTop - padBottom) / (hi - lo); };
    var s = App.svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", dir: "ltr", "aria-label": opts.label || "" });
    s.appendChild(App.svg("line", { class: "grid", x1: 0, x2: W, y1: H - padBottom, y2: H - padBottom }));
    if (points.length > 1) {
      s.appendChild(App.svg("polyline", { class: "series", points: points.map(function (p, i) { return x(i).toFixed(1) + "," + y(p.value).toFixed(1); }).join(" ") }));
    }
    points.forEach(function (p, i) {
      var c = App.svg("circle", { class: "pt", cx: x(i).toFixed(1), cy: y(p.value).toFixed(1), r: 3 });
      c.appendChild(App.svg("title", null, p.label + ": " + App.fmt(p.value, 2) + (opts.unit ? " " + App.unit(opts.unit) : "")));
      s.appendChild(c);
      if (p.pr) s.appendChild(App.svg("circle", { class: "pr", cx: x(i).toFixed(1), cy: y(p.value).toFixed(1), r: 7 }));
    });
    var first = App.svg("text", { x: x(0), y: H - 6, "text-anchor": points.length === 1 ? "middle" : "start" }, points[0].label);
    s.appendChild(first);
    if (points.length > 1) s.appendChild(App.svg("text", { x: x(points.length - 1), y: H - 6, "text-anchor": "end" }, points[points.length - 1].label));
    return s;
  };
})();
