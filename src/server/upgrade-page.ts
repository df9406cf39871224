// The upgrade status page (`GET /upgrade`, app.toml api.upgrade-page): one self-contained HTML document —
// inline CSS and script, nothing from elsewhere, so it works on a node with no Internet access — that reads
// only the node's public REST queries from its own origin. What it shows and how it reads each query is in
// src/server/README.md ("The upgrade page"). The script is plain browser JavaScript kept in this string
// (no build step); its one rule is the load bound: at most one round of queries per block, each round at
// most UPGRADE_PAGE_MAX_REQUESTS_PER_ROUND requests.

/** The most requests one refresh makes (tests hold the page to it). */
export const UPGRADE_PAGE_MAX_REQUESTS_PER_ROUND = 8;

// Applied plans the page looks up per round (names it has seen as the current plan or was given).
const HISTORY_LOOKUPS = 1;

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,sans-serif;color:#1b1f24;background:#f4f5f7}
header{background:#1b2a41;color:#fff;padding:12px 16px}
header h1{margin:0;font-size:18px}
header p{margin:2px 0 0;font-size:13px;opacity:.8}
main{max-width:860px;margin:0 auto;padding:12px}
section{background:#fff;border:1px solid #d8dce2;border-radius:6px;padding:12px 14px;margin:0 0 12px}
h2{margin:0 0 8px;font-size:16px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0}
dt{color:#5a6472}
dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:14px}
td,th{text-align:left;padding:3px 6px;border-bottom:1px solid #eceef1;overflow-wrap:anywhere}
th{white-space:nowrap;overflow-wrap:normal}
.note{color:#5a6472;font-size:13px}
.err{color:#a4161a}
.big{font-size:22px;font-weight:600}
.bar{position:relative;height:14px;background:#e5e8ec;border-radius:7px;overflow:hidden}
.bar i{position:absolute;left:0;top:0;bottom:0;background:#2e7d32}
.bar b{position:absolute;top:-2px;bottom:-2px;width:2px;background:#a4161a}
code{font-size:13px;overflow-wrap:anywhere}
.bin{margin:0 0 6px}
`;

// Plain browser script: no modules, no globals beyond `state`; every query failure becomes text in its section.
const SCRIPT = `
"use strict";
var U = "/chain/upgrade/v1beta1/";
var ZERO_TIME = "0001-01-01T00:00:00Z";
var state = { samples: [], seen: [], applied: {}, caps: {}, version: null, round: 0, requests: 0, timer: null };
try { state.seen = JSON.parse(localStorage.getItem("chaind-upgrade-seen") || "[]").slice(-20); } catch (e) {}

function $(id) { return document.getElementById(id); }
function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; }); }
function fail(id, what, problem) { $(id).innerHTML = '<p class="err">' + esc(what) + " failed: " + esc(problem) + "</p>"; }

// One GET; resolves {status, body} or {error}. Counts the request for the page's own bound.
function get(path) {
  state.requests++;
  return fetch(path, { headers: { accept: "application/json" }, cache: "no-store" }).then(function (r) {
    return r.text().then(function (t) {
      var body = null;
      try { body = JSON.parse(t); } catch (e) {}
      return { status: r.status, body: body };
    });
  }, function (e) { return { error: "the node did not answer (" + e.message + ")" }; });
}
function problem(r) {
  if (r.error) return r.error;
  return "HTTP " + r.status + (r.body && r.body.message ? ": " + r.body.message : "");
}

// The recent block interval in ms, from the heights and header times the page has seen.
function interval() {
  var s = state.samples;
  if (s.length < 2) return null;
  var a = s[0], b = s[s.length - 1];
  if (b.h <= a.h) return null;
  return (b.t - a.t) / (b.h - a.h);
}
function duration(ms) {
  var s = Math.round(ms / 1000);
  if (s < 90) return s + " s";
  if (s < 5400) return Math.round(s / 60) + " min";
  if (s < 172800) return (s / 3600).toFixed(1) + " h";
  return (s / 86400).toFixed(1) + " days";
}

// A plan's Info as chainvisor reads it: {"binaries":{"<os>/<arch>":"<url>?checksum=<algo>:<hex>"}}, or a URL to such a document.
function infoHtml(info) {
  if (!info) return '<span class="note">empty</span>';
  var text = String(info).trim();
  if (/^[a-z][a-z0-9+.-]*:\\/\\//i.test(text)) return 'a document at <a href="' + esc(text) + '">' + esc(text) + "</a> (chainvisor fetches it)";
  var doc;
  try { doc = JSON.parse(text); } catch (e) { return "<code>" + esc(text) + '</code> <span class="err">(not JSON: chainvisor cannot read it)</span>'; }
  var bins = doc && doc.binaries;
  if (!bins || typeof bins !== "object") return "<code>" + esc(text) + '</code> <span class="note">(no "binaries": chainvisor needs a release installed by hand)</span>';
  var rows = "";
  // One block per platform (not a table): long URLs and checksums wrap on a phone.
  Object.keys(bins).forEach(function (k) {
    var url = String(bins[k]), sum = "none (chainvisor refuses it unless DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM=false)";
    try { sum = new URL(url).searchParams.get("checksum") || sum; } catch (e) { sum = "invalid URL"; }
    rows += '<p class="bin"><b>' + esc(k) + '</b> <a href="' + esc(url) + '">' + esc(url.split("?")[0]) + "</a><br>checksum <code>" + esc(sum) + "</code></p>";
  });
  return rows;
}

function showPlan(r, height) {
  if (r.error || r.status !== 200 || !r.body) return fail("plan", "current_plan", problem(r));
  var p = r.body.plan;
  if (!p) { $("plan").innerHTML = '<p id="no-plan">No upgrade is scheduled.</p>'; return; }
  if (state.seen.indexOf(p.name) < 0) {
    state.seen.push(p.name);
    try { localStorage.setItem("chaind-upgrade-seen", JSON.stringify(state.seen)); } catch (e) {}
  }
  var rows = "<dt>name</dt><dd id=\\"plan-name\\">" + esc(p.name) + "</dd>";
  var ph = Number(p.height || 0);
  if (ph > 0) {
    rows += "<dt>height</dt><dd id=\\"plan-height\\">" + ph + "</dd>";
    if (height !== null) {
      var togo = Math.max(ph - height, 0), iv = interval();
      rows += '<dt>blocks to go</dt><dd><span class="big" id="blocks-to-go">' + togo + "</span></dd>";
      rows += "<dt>ETA</dt><dd>" + (iv === null ? '<span class="note">measuring the block interval…</span>'
        : "about " + duration(togo * iv) + " (" + new Date(Date.now() + togo * iv).toLocaleString() + ", at " + (iv / 1000).toFixed(2) + " s a block)") + "</dd>";
    }
  }
  if (p.time && p.time !== ZERO_TIME) rows += "<dt>time</dt><dd>" + esc(p.time) + "</dd>";
  rows += "<dt>info</dt><dd>" + infoHtml(p.info) + "</dd>";
  $("plan").innerHTML = "<dl>" + rows + "</dl>";
}

// An optional capability: 404/501 hides it with a note (this release does not serve it yet).
function absent(id, r, what) {
  if (!r.error && (r.status === 404 || r.status === 501)) {
    state.caps[id] = false;
    $(id).innerHTML = '<p class="note">This node does not serve ' + esc(what) + " (HTTP " + r.status + "); the section appears once its release does.</p>";
    return true;
  }
  return false;
}

function showReadiness(r, params) {
  if (absent("readiness", r, U + "readiness")) return;
  if (r.error || r.status !== 200 || !r.body) return fail("readiness", "readiness", problem(r));
  var b = r.body, frac = Number(b.ready_fraction || 0);
  var threshold = params && params.status === 200 && params.body && params.body.params ? Number(params.body.params.readiness_threshold || 0) : null;
  var html = b.plan ? "" : '<p class="note">No plan is scheduled: validators signal for the next one.</p>';
  html += "<p>" + (100 * frac).toFixed(1) + "% of the voting power is ready (" + esc(b.ready_power) + " of " + esc(b.total_power) + ")" +
    (threshold ? "; the threshold is " + (100 * threshold).toFixed(1) + "%" : threshold === 0 ? "; no threshold (the gate is off)" : "") + "</p>";
  html += '<div class="bar"><i style="width:' + Math.min(100, 100 * frac) + '%"></i>' + (threshold ? '<b style="left:' + Math.min(100, 100 * threshold) + '%"></b>' : "") + "</div>";
  var vs = b.validators || [];
  if (vs.length) {
    html += "<table><tr><th>validator</th><th>power</th><th>ready</th><th>last signal</th></tr>";
    vs.forEach(function (v) { html += "<tr><td>" + esc(v.operator_address) + "</td><td>" + esc(v.power) + "</td><td>" + (v.ready ? "yes" : "no") + "</td><td>" + esc(v.last_signal_height || "-") + "</td></tr>"; });
    html += "</table>";
  }
  $("readiness").innerHTML = html;
}

// LegacyDec text (x/upgrade's progress) as a percentage; "" (not estimable) as a dash; anything else as it is.
function migrationProgress(p) {
  if (p === "" || p === undefined) return "–";
  if (/^[0-9]+[.][0-9]{18}$/.test(p)) return (Math.floor(Number(p) * 1000) / 10).toFixed(1) + "%";
  return p;
}

function showMigrations(r) {
  if (absent("migrations", r, U + "migrations")) return;
  if (r.error || r.status !== 200 || !r.body) return fail("migrations", "migrations", problem(r));
  var ms = r.body.migrations || [];
  if (!ms.length) { $("migrations").innerHTML = '<p class="note">No stepped migration is recorded.</p>'; return; }
  var html = "<table><tr><th>upgrade</th><th>module</th><th>migration</th><th>progress</th><th>heights</th></tr>";
  ms.forEach(function (m) {
    html += "<tr><td>" + esc(m.upgrade) + "</td><td>" + esc(m.module) + "</td><td>" + esc(m.name) + "</td><td>" + esc(migrationProgress(m.progress)) + " (" + esc(m.steps) + " steps)</td><td>" +
      esc(m.started_height) + " → " + (m.finished_height && m.finished_height !== "0" ? esc(m.finished_height) : "running") + "</td></tr>";
  });
  $("migrations").innerHTML = html + "</table>";
}

function showHistory(versions, lookups) {
  lookups.forEach(function (l) {
    if (!l.r.error && l.r.status === 200 && l.r.body && Number(l.r.body.height) > 0) state.applied[l.name] = l.r.body.height;
  });
  var names = Object.keys(state.applied);
  var html = names.length ? '<table id="applied"><tr><th>plan</th><th>applied at height</th></tr>' + names.map(function (n) {
    return "<tr><td>" + esc(n) + "</td><td>" + esc(state.applied[n]) + "</td></tr>"; }).join("") + "</table>"
    : '<p class="note">No applied plan among the names this page has seen.</p>';
  html += '<p class="note">The node has no query listing every applied plan: this page asks applied_plan/{name} for each plan it has seen scheduled (kept in this browser).</p>';
  if (versions.error || versions.status !== 200 || !versions.body) html += '<p class="err">module_versions failed: ' + esc(problem(versions)) + "</p>";
  else {
    html += "<h2>Module versions</h2><table><tr><th>module</th><th>version</th></tr>";
    (versions.body.module_versions || []).forEach(function (m) { html += "<tr><td>" + esc(m.name) + "</td><td>" + esc(m.version) + "</td></tr>"; });
    html += "</table>";
  }
  $("history").innerHTML = html;
}

function showNode(info, block) {
  if (info.error || info.status !== 200 || !info.body) fail("node", "node_info", problem(info));
  else {
    var av = info.body.application_version || {}, dn = info.body.default_node_info || {};
    var pv = dn.protocol_version || {};
    $("node").innerHTML = "<dl><dt>application</dt><dd>" + esc(av.app_name || av.name || "?") + " " + esc(av.version || "?") + "</dd>" +
      "<dt>protocol (app) version</dt><dd>" + esc(pv.app || "?") + "</dd><dt>chain</dt><dd>" + esc(dn.network || "?") + "</dd>" +
      "<dt>moniker</dt><dd>" + esc(dn.moniker || "?") + '</dd><dt>height</dt><dd id="height">' + (block ? block.h : "?") + "</dd></dl>";
  }
}

function round() {
  state.round++;
  var reqs = { plan: get(U + "current_plan"), block: get("/chain/base/tendermint/v1beta1/blocks/latest"),
    info: get("/chain/base/tendermint/v1beta1/node_info"), versions: get(U + "module_versions") };
  if (state.caps.readiness !== false) { reqs.readiness = get(U + "readiness"); reqs.params = get(U + "params"); }
  if (state.caps.migrations !== false) reqs.migrations = get(U + "migrations");
  var pending = state.seen.filter(function (n) { return !(n in state.applied); }).slice(-${HISTORY_LOOKUPS});
  var lookups = pending.map(function (n) { return { name: n, p: get(U + "applied_plan/" + encodeURIComponent(n)) }; });
  var keys = Object.keys(reqs);
  return Promise.all(keys.map(function (k) { return reqs[k]; }).concat(lookups.map(function (l) { return l.p; }))).then(function (all) {
    var r = {};
    keys.forEach(function (k, i) { r[k] = all[i]; });
    lookups.forEach(function (l, i) { l.r = all[keys.length + i]; });
    var block = null;
    if (!r.block.error && r.block.status === 200 && r.block.body) {
      var hd = (r.block.body.sdk_block || r.block.body.block || {}).header || {};
      block = { h: Number(hd.height), t: Date.parse(hd.time) };
      var last = state.samples[state.samples.length - 1];
      if (!last || last.h !== block.h) state.samples.push(block);
      if (state.samples.length > 20) state.samples.shift();
    }
    // A new release may serve what the old one did not: probe the optional queries again.
    if (!r.info.error && r.info.status === 200 && r.info.body) {
      var v = JSON.stringify(r.info.body.application_version || {});
      if (state.version !== null && state.version !== v) state.caps = {};
      state.version = v;
    }
    showPlan(r.plan, block ? block.h : null);
    showNode(r.info, block);
    showHistory(r.versions, lookups);
    if (r.readiness) showReadiness(r.readiness, r.params);
    if (r.migrations) showMigrations(r.migrations);
    $("status").textContent = (block ? "height " + block.h + " · " : "the node is not answering · ") + "updated " + new Date().toLocaleTimeString() +
      " · " + state.requests + " requests in " + state.round + " refreshes";
    document.body.setAttribute("data-round", String(state.round));
  });
}

// The next round waits one block interval (at least 1 s, at most 30 s): never more than one round a block.
function loop() {
  round().then(function () {
    var iv = interval();
    state.timer = setTimeout(loop, Math.min(30000, Math.max(1000, iv === null ? 2000 : iv)));
  });
}
loop();
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>chaind: upgrade status</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<header><h1>Upgrade status</h1><p id="status">loading…</p></header>
<main>
<section><h2>Current plan</h2><div id="plan">loading…</div></section>
<section><h2>Readiness</h2><div id="readiness">loading…</div></section>
<section><h2>Stepped migrations</h2><div id="migrations">loading…</div></section>
<section><h2>History</h2><div id="history">loading…</div></section>
<section><h2>This node</h2><div id="node">loading…</div></section>
<noscript><p>This page reads the node's REST queries with JavaScript; without it, use /chain/upgrade/v1beta1/current_plan.</p></noscript>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;

/** The page's bytes (built once; it holds no per-request data), titled for the reference chain. */
export const UPGRADE_PAGE_HTML: Buffer = Buffer.from(PAGE, "utf8");

const byBinary = new Map<string, Buffer>([["chaind", UPGRADE_PAGE_HTML]]);

/** The page titled with the binary's name (`tallyd: upgrade status`); built once per name. */
export function upgradePageHtml(binary: string): Buffer {
  let page = byBinary.get(binary);
  if (page === undefined) {
    // Binary names are letters, digits and . _ - (src/config/chain-identity.ts); escaped anyway, it is HTML.
    const safe = binary.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    page = Buffer.from(PAGE.replace("<title>chaind: upgrade status</title>", `<title>${safe}: upgrade status</title>`));
    byBinary.set(binary, page);
  }
  return page;
}
