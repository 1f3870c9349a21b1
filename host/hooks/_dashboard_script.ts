/**
 * The dashboard's script (served as `/dashboard.js`). Plain browser
 * JavaScript: it follows the Hook API's events with a cursor, and writes
 * every value with `textContent` (nothing from the API becomes markup),
 * through `printable` (text) or `printableJson` (arguments): control
 * characters, bidi controls and lone surrogates are shown escaped, as the
 * CLI shows them. Those two are `security/printable.ts`'s own functions,
 * embedded from their source ({@linkcode PRINTABLE_SCRIPT}).
 *
 * @module
 */

import { PRINTABLE_SCRIPT } from "../../security/printable.ts";

/** The script's text. */
export const DASHBOARD_SCRIPT = String.raw`"use strict";
${PRINTABLE_SCRIPT}
const $ = (id) => document.getElementById(id);
const state = { token: null, cursor: 0, calls: [], samples: [], stopped: false };
const BUCKET_MS = 10000, WINDOW_MS = 600000, MAX_ROWS = 50;

function start() {
  const match = /(?:^|&)token=([^&]+)/.exec(location.hash.slice(1));
  if (match) {
    sessionStorage.setItem("toolhost-token", decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname);
  }
  state.token = sessionStorage.getItem("toolhost-token");
  $("login").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem("toolhost-token", $("token").value.trim());
    location.reload();
  });
  $("plot-tool").addEventListener("change", plot);
  if (!state.token) return showLogin("");
  $("main").hidden = false;
  follow();
  refresh();
  setInterval(refresh, 5000);
}

function showLogin(why) {
  $("login").hidden = false;
  $("main").hidden = true;
  $("state").textContent = why || "sign in";
  state.stopped = true;
}

async function api(path, init) {
  const response = await fetch(path, {
    ...(init || {}),
    headers: { Authorization: "Bearer " + state.token, "Content-Type": "application/json" },
  });
  if (response.status === 401) {
    sessionStorage.removeItem("toolhost-token");
    showLogin("the token was refused");
    throw new Error("unauthorized");
  }
  return response;
}

async function follow() {
  while (!state.stopped) {
    try {
      const page = await (await api("/api/events?wait=25&after=" + state.cursor)).json();
      $("state").textContent = "live";
      for (const event of page.events) take(event);
      state.cursor = page.cursor;
      renderCalls();
    } catch (error) {
      if (state.stopped) return;
      $("state").textContent = "disconnected, retrying…";
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

function take(event) {
  const data = event.data;
  if (event.type === "call_started") {
    state.calls.unshift({ id: data.call, ts: event.ts, tool: data.tool, session: data.session, args: data.args, outcome: "running" });
    state.calls.length = Math.min(state.calls.length, MAX_ROWS);
  } else if (event.type === "call_waiting" || event.type === "call_resumed") {
    const call = state.calls.find((each) => each.id === data.call);
    if (call) call.outcome = event.type === "call_waiting" ? "waiting for approval" : "running";
  } else if (event.type === "call_ended") {
    const call = state.calls.find((each) => each.id === data.call);
    if (call) { call.outcome = data.outcome; call.ms = data.duration_ms; call.waited = data.waited_ms; }
    // A call the approval refused never ran: it has no latency to plot (as in the tools' table).
    const ran = data.approval === undefined || data.approval === "approved";
    if (ran) state.samples.push({ t: Date.parse(event.ts), tool: data.tool, ms: data.duration_ms, error: data.outcome !== "ok" });
    soon();
  } else if (event.type === "approval_asked" || event.type === "approval_answered") {
    loadApprovals();
  } else if (event.type === "status_changed") {
    health(data);
  }
}

// Text from the API is shown through printable (a JSON value through printableJson), never raw.
function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text === undefined || text === null ? "" : printable(String(text));
  if (cls) td.className = cls;
  return td;
}

function jsonText(value, space) {
  return printableJson(JSON.stringify(value, null, space) ?? "");
}

function jsonCell(row, value, cls) {
  const td = row.insertCell();
  td.textContent = jsonText(value);
  td.title = jsonText(value, 2);
  if (cls) td.className = cls;
  return td;
}

function renderCalls() {
  const body = $("calls").tBodies[0];
  body.replaceChildren();
  for (const call of state.calls) {
    const row = body.insertRow();
    cell(row, new Date(call.ts).toLocaleTimeString());
    cell(row, call.tool);
    cell(row, call.session);
    jsonCell(row, call.args, "args");
    const pending = call.outcome === "running" || call.outcome === "waiting for approval";
    cell(row, call.outcome, call.outcome === "ok" ? "ok" : pending ? "running" : "bad");
    // Its own time; a wait for approval apart, never in it.
    const waited = call.waited === undefined ? "" : " (+" + (call.waited / 1000).toFixed(1) + " s waiting)";
    cell(row, call.ms === undefined ? "" : call.ms.toFixed(1) + waited);
  }
  plot();
}

// Cards stay while their call waits (a reason being typed is kept); only the latest answer is shown.
const cards = new Map();
let asking = 0;
async function loadApprovals() {
  const mine = ++asking;
  const { approvals } = await (await api("/api/approvals")).json();
  if (mine !== asking) return;
  $("approval-count").textContent = String(approvals.length);
  $("no-approvals").hidden = approvals.length > 0;
  const waiting = new Set(approvals.map((request) => request.id));
  for (const [id, card] of cards) if (!waiting.has(id)) { card.remove(); cards.delete(id); }
  for (const request of approvals) {
    if (!cards.has(request.id)) { cards.set(request.id, approvalCard(request)); }
    $("approvals").append(cards.get(request.id));
  }
}

function approvalCard(request) {
  const card = document.createElement("div");
  card.className = "approval";
  card.dataset.id = request.id;
  const title = document.createElement("h3");
  title.textContent = printable(request.tool + " — session " + request.session + " (" + request.client + ")");
  const why = document.createElement("p");
  why.textContent = printable("Matched " + request.matched.join(", ") + "; times out at " + new Date(request.expires_at).toLocaleTimeString());
  const args = document.createElement("pre");
  args.textContent = jsonText(request.args, 2);
  const hash = document.createElement("p");
  hash.className = "hash";
  hash.textContent = printable("SHA-256 of tool and arguments: " + request.args_hash);
  const reason = document.createElement("input");
  reason.placeholder = "reason (told to the agent on a denial)";
  reason.size = 40;
  const buttons = document.createElement("p");
  const button = (label, cls, body) => {
    const b = document.createElement("button");
    b.textContent = label;
    b.className = cls;
    b.addEventListener("click", () => decide(request, { ...body, reason: reason.value || undefined }, card));
    buttons.append(b);
  };
  button("Approve", "approve", { decision: "approve", scope: "call" });
  if (request.scope_allowed === "session") button("Approve for this session", "approve", { decision: "approve", scope: "session" });
  button("Deny", "deny", { decision: "deny" });
  buttons.append(reason);
  card.append(title, why, args, hash, buttons);
  return card;
}

async function decide(request, body, card) {
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  const response = await api("/api/approvals/" + encodeURIComponent(request.id), {
    method: "POST",
    body: JSON.stringify({ ...body, args_hash: request.args_hash, via: "dashboard", by: "dashboard" }),
  });
  if (!response.ok) {
    alert(printable("Not answered: " + (await response.json()).error));
    for (const b of card.querySelectorAll("button")) b.disabled = false;
  }
  loadApprovals();
}

function soon() {
  clearTimeout(state.soon);
  state.soon = setTimeout(refresh, 300);
}

async function refresh() {
  try {
    const [perf, sessions, project] = await Promise.all([
      api("/api/performance").then((r) => r.json()),
      api("/api/session").then((r) => r.json()),
      state.roots ? null : api("/api/project").then((r) => r.json()),
    ]);
    if (project) { state.roots = printable(project.project.roots.join(", ")); $("roots").textContent = state.roots; }
    toolTable(perf.performance.tools);
    health(perf.performance.status);
    sessionTable(sessions.session.sessions);
    loadApprovals();
  } catch (error) { /* the event loop says the connection's state */ }
}

function toolTable(tools) {
  const body = $("tools").tBodies[0];
  body.replaceChildren();
  const select = $("plot-tool");
  const names = Object.keys(tools).sort();
  const busiest = names.slice().sort((a, b) => tools[b].count - tools[a].count)[0];
  const chosen = select.value || busiest;
  select.replaceChildren(...names.map((name) => new Option(printable(name), name, false, name === chosen)));
  for (const name of names) {
    const s = tools[name], row = body.insertRow();
    cell(row, name); cell(row, s.count); cell(row, s.errors);
    cell(row, (s.error_rate * 100).toFixed(1) + "%", s.errors ? "bad" : "");
    cell(row, s.p50_ms.toFixed(1)); cell(row, s.p95_ms.toFixed(1)); cell(row, s.max_ms.toFixed(1));
  }
  plot();
}

function health(status) {
  const lines = ["efferent copy: " + status.efferent_copy.state + (status.efferent_copy.reason ? " (" + status.efferent_copy.reason + ")" : "")];
  for (const up of status.upstreams || []) lines.push("upstream " + up.name + ": " + up.state + (up.reason ? " (" + up.reason + ")" : ""));
  if (!status.upstreams || status.upstreams.length === 0) lines.push("no upstream server");
  $("health").replaceChildren(...lines.map((text) => { const p = document.createElement("p"); p.textContent = printable(text); return p; }));
}

function sessionTable(sessions) {
  const body = $("sessions").tBodies[0];
  body.replaceChildren();
  for (const s of sessions) {
    const row = body.insertRow();
    cell(row, s.session); cell(row, s.client); cell(row, s.calls);
    cell(row, new Date(s.last_call).toLocaleTimeString());
    cell(row, s.recent.slice(-5).map((c) => c.tool + " " + c.outcome).join(", "));
  }
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function plot() {
  const svg = $("plot"), tool = $("plot-tool").value, now = Date.now();
  state.samples = state.samples.filter((s) => now - s.t < WINDOW_MS);
  const buckets = new Map();
  for (const s of state.samples) {
    if (s.tool !== tool) continue;
    const key = Math.floor(s.t / BUCKET_MS);
    (buckets.get(key) || buckets.set(key, []).get(key)).push(s.ms);
  }
  const points = [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([key, values]) => {
    values.sort((a, b) => a - b);
    return { t: key * BUCKET_MS, p50: quantile(values, 0.5), p95: quantile(values, 0.95) };
  });
  const top = Math.max(1, ...points.map((p) => p.p95));
  const x = (t) => 30 + ((t - (now - WINDOW_MS)) / WINDOW_MS) * 600;
  const y = (ms) => 185 - (ms / top) * 170;
  const line = (key) => points.map((p) => x(p.t).toFixed(1) + "," + y(p[key]).toFixed(1)).join(" ");
  const ns = "http://www.w3.org/2000/svg";
  const make = (name, attrs, text) => {
    const el = document.createElementNS(ns, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text) el.textContent = text;
    return el;
  };
  svg.replaceChildren(
    make("text", { x: 2, y: 14 }, top.toFixed(1) + " ms"),
    make("text", { x: 2, y: 196 }, "0"),
    make("polyline", { class: "p95", points: line("p95") }),
    make("polyline", { class: "p50", points: line("p50") }),
    ...points.flatMap((p) => ["p95", "p50"].map((key) =>
      make("circle", { class: key, cx: x(p.t).toFixed(1), cy: y(p[key]).toFixed(1), r: 3 }))),
  );
}

start();
`;
