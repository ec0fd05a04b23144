#pragma once

namespace worker {

/// The dashboard served at `/`: one static page that polls /v1/stats, /v1/recent and
/// /v1/workers (the whole fleet) every two seconds, with links to the server-rendered pages
/// (/files with filters and search, /files/<id>, /dead). No external assets, so it works on an isolated network.
/// Element ids (`ready`, `lag`, `pending`, `in-flight`, `dead`, `throughput`, `failure-rate`,
/// `minutes`, `recent`) are what tests/worker/dashboard_test.py looks for.
inline constexpr const char* k_dashboard_html = R"html(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ingestd</title>
<link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px system-ui,sans-serif;margin:1.5em 2em;color:#222;max-width:72em}
h1{margin:0 0 .3em}h2{margin:1.4em 0 .5em;font-size:1.1em}
.cards{display:flex;gap:1em;flex-wrap:wrap}
.card{border:1px solid #ddd;border-radius:6px;padding:.6em 1em;min-width:8em}
.card b{display:block;font-size:1.6em}.card span{color:#666}
#state.ok{color:#18794e}#state.bad{color:#c5221f}
#minutes{display:flex;align-items:flex-end;gap:2px;height:60px;border-bottom:1px solid #ccc}
#minutes div{width:14px;display:flex;flex-direction:column-reverse}
#minutes .d{background:#4a90d9}#minutes .f{background:#d9534f}
table{border-collapse:collapse;width:100%}td,th{padding:4px 8px;text-align:left;border-bottom:1px solid #eee;vertical-align:middle}
td.thumb{width:80px;height:76px}td.thumb img{max-width:72px;max-height:72px;display:block}
.st-done{color:#18794e}.st-failed{color:#c5221f}.st-processing,.st-pending{color:#8a6d00}
.err{color:#c5221f;font-size:.9em}code{font-size:.9em}
pre{background:#f4f4f4;padding:1em;overflow:auto}input{font:inherit;width:24em}
</style></head>
<body>
<h1>ingestd</h1>
<p>Worker <code id="worker"></code>: <b id="state">…</b> <span id="updated" style="color:#888"></span></p>
<div class="cards">
  <div class="card"><b id="lag">–</b><span>waiting in the stream</span></div>
  <div class="card"><b id="pending">–</b><span>delivered, not acknowledged</span></div>
  <div class="card"><b id="in-flight">–</b><span>in flight here</span></div>
  <div class="card"><b id="throughput">–</b><span>files/min here (15 min)</span></div>
  <div class="card"><b id="failure-rate">–</b><span>failed (15 min)</span></div>
  <div class="card"><b id="dead">–</b><span>dead-lettered</span></div>
</div>
<p><a href="/files">All files</a> · <a href="/files?status=failed">Failed files</a> · <a href="/dead">Dead letters</a> ·
<form action="/files" method="get" style="display:inline"><input name="q" placeholder="search by file id or name"> <button>Search</button></form></p>
<h2>Workers (the whole fleet)</h2>
<p>Fleet, last 15 min: <b id="fleet-throughput">–</b> files/min, <b id="fleet-failure-rate">–</b> failed; failures by code: <span id="fleet-codes">–</span></p>
<table id="workers"><thead><tr><th>worker</th><th>host</th><th>version</th><th>in flight</th><th>files done</th><th>failed</th><th>started</th><th>last seen</th></tr></thead><tbody></tbody></table>
<h2>Files finished by this worker per minute (blue done, red failed)</h2>
<div id="minutes"></div>
<h2>Latest files</h2>
<table id="recent"><thead><tr><th></th><th>file</th><th>type</th><th>status</th><th>finished</th><th>error</th></tr></thead><tbody></tbody></table>
<script>
'use strict';
const $ = id => document.getElementById(id);
const cell = (tr, text, cls) => { const td = document.createElement('td'); td.textContent = text || ''; if (cls) td.className = cls; tr.appendChild(td); return td; };
const thumbs = new Map();  // file_id + finished_at -> <img>, so that a refresh does not reload them

async function json(url) {
  // From the origin: a page opened as http://user:token@host/ cannot fetch URLs with credentials.
  const r = await fetch(location.origin + url, {cache: 'no-store'});
  if (!r.ok) throw new Error(url + ': ' + r.status);
  return r.json();
}

function showStats(s) {
  $('worker').textContent = s.worker;
  $('state').textContent = s.draining ? 'draining' : s.ready ? 'ready' : 'not ready (Redis unreachable)';
  $('state').className = s.ready ? 'ok' : 'bad';
  $('lag').textContent = s.stream_lag;
  $('pending').textContent = s.stream_pending;
  $('in-flight').textContent = s.in_flight + ' / ' + s.concurrency;
  $('dead').textContent = s.dead_letters;
  let done = 0, failed = 0, peak = 1;
  for (const m of s.minutes) { done += m.done; failed += m.failed; peak = Math.max(peak, m.done + m.failed); }
  $('throughput').textContent = (done / s.minutes.length).toFixed(1);
  $('failure-rate').textContent = done + failed ? (100 * failed / (done + failed)).toFixed(1) + ' %' : '–';
  const bars = $('minutes'); bars.textContent = '';
  for (const m of s.minutes) {
    const col = document.createElement('div');
    col.title = new Date(m.start * 1000).toLocaleTimeString() + ': ' + m.done + ' done, ' + m.failed + ' failed';
    for (const [n, cls] of [[m.done, 'd'], [m.failed, 'f']]) {
      const b = document.createElement('div'); b.className = cls; b.style.height = (58 * n / peak) + 'px'; col.appendChild(b);
    }
    bars.appendChild(col);
  }
}

function showRecent(rows) {
  const tb = $('recent').tBodies[0]; tb.textContent = '';
  for (const x of rows) {
    const tr = document.createElement('tr'); tr.dataset.fileId = x.file_id;
    const td = cell(tr, '', 'thumb');
    if (x.thumbnail) {
      const key = x.file_id + ' ' + (x.finished_at || '');
      let img = thumbs.get(key);
      if (!img) { img = new Image(); img.alt = ''; img.src = x.thumbnail; thumbs.set(key, img); }
      td.appendChild(img);
    }
    const name = cell(tr, ''); name.title = x.file_id;
    const link = document.createElement('a'); link.href = '/files/' + encodeURIComponent(x.file_id);
    link.textContent = x.name || x.file_id; name.appendChild(link);
    if (x.name) { const id = document.createElement('div'); id.innerHTML = '<code></code>'; id.firstChild.textContent = x.file_id; name.appendChild(id); }
    cell(tr, x.content_type);
    cell(tr, x.status, 'status st-' + x.status);
    cell(tr, x.finished_at ? new Date(x.finished_at).toLocaleTimeString() : '');
    cell(tr, x.error_code ? x.error_code + ': ' + (x.error || '') : '', 'err');
    tb.appendChild(tr);
  }
}

function showFleet(f) {
  const tb = $('workers').tBodies[0]; tb.textContent = '';
  for (const w of f.workers) {
    const tr = document.createElement('tr'); tr.dataset.worker = w.name;
    for (const v of [w.name, w.host, w.version, w.in_flight + ' / ' + w.concurrency, w.files_done, w.files_failed,
                     w.started_at, w.last_seen]) cell(tr, String(v));
    tb.appendChild(tr);
  }
  $('fleet-throughput').textContent = f.throughput_per_minute.toFixed(1);
  $('fleet-failure-rate').textContent = (100 * f.failure_rate).toFixed(1) + ' %';
  const codes = Object.entries(f.failures_by_code).map(([c, n]) => c + ' ' + n).join(', ');
  $('fleet-codes').textContent = codes || 'none';
}

async function refresh() {
  try {
    const [stats, recent, fleet] = await Promise.all([json('/v1/stats'), json('/v1/recent'), json('/v1/workers')]);
    showStats(stats); showRecent(recent); showFleet(fleet);
    $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    $('state').textContent = 'unreachable'; $('state').className = 'bad';
  }
}

refresh(); setInterval(refresh, 2000);
</script></body></html>
)html";

} // namespace worker
