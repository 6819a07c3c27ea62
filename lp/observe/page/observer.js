// The LP observer page: one WebSocket to the running program; each tick is rendered as it comes.
// The page sends the program what it wants to see (sort, page, filter, selected actor); the
// program answers one page of the actor table, never all of it. Text from the program is
// always set as text, never as HTML.
"use strict";

const HISTORY_MS = 5 * 60 * 1000;
const query = { sort: "id", desc: false, page: 0, size: 50, filter: "", select: null };
let socket = null;
let last = null;          // the previous tick, for rates
const history = [];       // {t, waiting, rate}
let rates = { msg: 0, spawn: 0 };

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function actorLink(id, site) {
  const a = el("a", { class: "actor", "data-actor": id, onclick: () => select(id) }, "#" + id);
  return site ? el("span", {}, a, " ", el("span", { class: "muted" }, site)) : a;
}

function send() {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(query));
}

function select(id) {
  query.select = id;
  send();
}

function fmt(n) {
  return n >= 10000 ? Math.round(n).toLocaleString("en") : (Math.round(n * 10) / 10).toLocaleString("en");
}

function renderTotals(d) {
  const t = d.totals;
  $("t-actors").textContent = fmt(t.actors);
  $("t-msgrate").textContent = fmt(rates.msg);
  $("t-spawnrate").textContent = fmt(rates.spawn);
  $("t-exited").textContent = fmt(t.exited);
  $("t-mailboxes").textContent = fmt(t.mailboxes);
  $("t-steals").textContent = fmt(t.steals);
  $("t-parks").textContent = fmt(t.parks);
}

function renderDomains(d) {
  const box = $("domains");
  box.replaceChildren();
  d.domains.forEach((dom, i) => {
    let load = 0;
    if (last && last.domains[i]) {
      const dt = (d.t - last.t) * 1e6;
      const idle = dom.parked_ns - last.domains[i].parked_ns;
      load = dt > 0 ? Math.max(0, Math.min(1, 1 - idle / dt)) : 0;
    }
    box.append(el("div", { class: "bar", "data-domain": i },
      el("span", {}, "domain " + i),
      el("span", { class: "track" }, el("span", { class: "fill", style: `width:${(load * 100).toFixed(0)}%` })),
      el("span", { class: "muted" }, `${(load * 100).toFixed(0)}% busy, ${dom.queued} queued`)));
  });
}

function polyline(points, color) {
  const p = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  p.setAttribute("points", points.join(" "));
  p.setAttribute("fill", "none");
  p.setAttribute("stroke", color);
  p.setAttribute("stroke-width", "1.5");
  p.setAttribute("vector-effect", "non-scaling-stroke");
  return p;
}

function renderChart() {
  const svg = $("chart");
  svg.replaceChildren();
  if (history.length < 2) return;
  const t1 = history[history.length - 1].t;
  const t0 = Math.max(history[0].t, t1 - HISTORY_MS);
  const x = (t) => ((t - t0) / Math.max(1, t1 - t0)) * 600;
  const maxWait = Math.max(1, ...history.map((h) => h.waiting));
  const maxRate = Math.max(1, ...history.map((h) => h.rate));
  svg.append(polyline(history.map((h) => `${x(h.t).toFixed(1)},${(135 - (h.waiting / maxWait) * 125).toFixed(1)}`), "#c2410c"));
  svg.append(polyline(history.map((h) => `${x(h.t).toFixed(1)},${(135 - (h.rate / maxRate) * 125).toFixed(1)}`), "#2f6fdf"));
  $("chart-scale").textContent = `over ${((t1 - t0) / 1000).toFixed(0)} s; top of the chart: ${fmt(maxWait)} waiting, ${fmt(maxRate)} messages/s`;
}

function renderActors(d) {
  const a = d.actors;
  $("a-count").textContent = `(${fmt(a.count)})`;
  $("pageinfo").textContent = ` page ${a.page + 1} of ${a.pages} `;
  query.page = a.page;
  for (const th of document.querySelectorAll("#actors th")) {
    th.classList.toggle("sorted", th.dataset.key === a.sort);
    th.classList.toggle("asc", th.dataset.key === a.sort && !a.desc);
  }
  // rows are updated in place (a click landing during a tick still hits its row)
  const body = $("actors").tBodies[0];
  while (body.rows.length > a.rows.length) body.deleteRow(-1);
  a.rows.forEach((r, i) => {
    let tr = body.rows[i];
    if (!tr) {
      tr = body.insertRow();
      for (let c = 0; c < 8; c++) tr.insertCell();
      tr.addEventListener("click", () => select(Number(tr.dataset.actor)));
    }
    tr.dataset.actor = r.id;
    const cells = [r.id, r.site, r.state + (r.traps ? " (traps exits)" : ""), r.mailbox, r.turns, r.links,
                   r.monitors, r.domain < 0 ? "–" : r.domain];
    cells.forEach((v, c) => { if (tr.cells[c].textContent !== String(v)) tr.cells[c].textContent = v; });
    tr.classList.toggle("selected", r.id === query.select);
  });
}

function renderDetails(d) {
  const box = $("details");
  const s = d.selected;
  if (!s) return;
  box.classList.remove("muted");
  if (!s.alive) {
    box.replaceChildren(el("p", {}, `Actor #${s.id} is no longer alive.`));
    return;
  }
  const list = (items, count) => items.length
    ? el("span", {}, ...items.flatMap((p, i) => [i ? ", " : "", actorLink(p.id, p.site)]),
         count > items.length ? ` and ${count - items.length} more` : "")
    : el("span", { class: "muted" }, "none");
  box.replaceChildren(el("dl", { id: "details-list", "data-actor": s.id },
    el("dt", {}, "actor"), el("dd", {}, "#" + s.id),
    el("dt", {}, "spawned at"), el("dd", {}, s.site || "–"),
    el("dt", {}, "state"), el("dd", {}, s.state + (s.traps ? ", traps exits" : "")),
    el("dt", {}, "mailbox"), el("dd", {}, `${s.mailbox} waiting`),
    el("dt", {}, "turns"), el("dd", {}, s.turns),
    el("dt", {}, "domain"), el("dd", {}, s.domain < 0 ? "–" : s.domain),
    el("dt", {}, "linked to"), el("dd", {}, list(s.linked, s.linkCount)),
    el("dt", {}, "monitored by"), el("dd", {}, list(s.watchers, s.watcherCount)),
    el("dt", {}, "oldest messages"), el("dd", { id: "details-messages" }, s.oldest.length
      ? s.oldest.join(", ") + (s.mailbox > s.oldest.length ? `, … (${s.mailbox} in all)` : "")
      : el("span", { class: "muted" }, "none"))));
}

function renderSupervisors(d) {
  const box = $("supervisors");
  if (!d.supervisors.length) return;
  box.classList.remove("muted");
  const byActor = new Map(d.supervisors.map((s) => [s.actor, s]));
  const children = new Set(d.supervisors.flatMap((s) => s.children.map((c) => c.actor)));
  const node = (s) => el("li", { "data-supervisor": s.name },
    el("b", {}, s.name), " ", actorLink(s.actor), " ",
    el("span", { class: "restarts", "data-restarts": s.restarts }, `${s.restarts} restart${s.restarts === 1 ? "" : "s"}`),
    el("div", { class: "events" }, ...s.events.slice(-4).map((e) =>
      el("div", {}, `${(e.t / 1000).toFixed(1)}s ${e.kind} ${e.child}${e.detail ? " (" + e.detail + ")" : ""}`))),
    el("ul", {}, ...s.children.map((c) => byActor.has(c.actor)
      ? node(byActor.get(c.actor))
      : el("li", {}, c.id, " ", c.actor ? actorLink(c.actor) : el("span", { class: "muted" }, "not running"),
           c.restarts ? el("span", { class: "restarts" }, ` ${c.restarts} restarts`) : ""))));
  box.replaceChildren(el("ul", { class: "tree" },
    ...d.supervisors.filter((s) => !children.has(s.actor)).map(node)));
}

function renderDeaths(d) {
  const box = $("deaths");
  if (!d.deaths.length) return;
  box.classList.remove("muted");
  box.replaceChildren(...d.deaths.map((x) => el("li", {},
    `${(x.t / 1000).toFixed(1)}s `, actorLink(x.id, x.site), ` died (${x.reason})`,
    x.where ? el("span", { class: "muted" }, " at " + x.where) : "")));
}

const shown = {};
function changed(name, data) {
  const text = JSON.stringify(data);
  if (shown[name] === text) return false;
  shown[name] = text;
  return true;
}

function tick(d) {
  if (last && d.t > last.t) {
    const dt = (d.t - last.t) / 1000;
    rates = { msg: (d.totals.messages - last.totals.messages) / dt, spawn: (d.totals.spawned - last.totals.spawned) / dt };
  }
  history.push({ t: d.t, waiting: d.totals.mailboxes, rate: rates.msg });
  while (history.length && history[0].t < d.t - HISTORY_MS) history.shift();
  renderTotals(d);
  renderDomains(d);
  renderChart();
  renderActors(d);
  if (changed("selected", d.selected)) renderDetails(d);
  if (changed("supervisors", d.supervisors)) renderSupervisors(d);
  if (changed("deaths", d.deaths)) renderDeaths(d);
  last = d;
  document.body.dataset.ticks = String(Number(document.body.dataset.ticks || 0) + 1);
}

function connect() {
  socket = new WebSocket(`ws://${location.host}/feed`);
  socket.onopen = () => { $("status").textContent = "live"; $("status").className = "status live"; send(); };
  socket.onmessage = (m) => tick(JSON.parse(m.data));
  socket.onclose = () => {
    $("status").textContent = "the program has ended (or the connection closed)";
    $("status").className = "status closed";
  };
}

for (const th of document.querySelectorAll("#actors th")) {
  th.addEventListener("click", () => {
    query.desc = query.sort === th.dataset.key ? !query.desc : th.dataset.key !== "id" && th.dataset.key !== "site";
    query.sort = th.dataset.key;
    query.page = 0;
    send();
  });
}
$("prev").addEventListener("click", () => { query.page = Math.max(0, query.page - 1); send(); });
$("next").addEventListener("click", () => { query.page += 1; send(); });
$("filter").addEventListener("input", (e) => { query.filter = e.target.value.trim(); query.page = 0; send(); });
connect();
