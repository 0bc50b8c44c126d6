// The dashboard: schedules, runs and events from the API, refreshed when
// an event arrives on the stream, with the operations a person needs.
"use strict";

const $ = (sel) => document.querySelector(sel);
const tokenInput = $("#token");
tokenInput.value = localStorage.getItem("sked.token") || "";
tokenInput.addEventListener("change", () => {
  localStorage.setItem("sked.token", tokenInput.value);
  refresh();
  follow();
});

function headers() {
  const t = tokenInput.value;
  return t ? { Authorization: "Bearer " + t } : {};
}

async function api(method, path, body) {
  const init = { method, headers: headers() };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const r = await fetch(path, init);
  const text = await r.text();
  const data = text ? JSON.parse(text) : null;
  if (!r.ok) throw new Error(data && data.error ? data.error.message : r.statusText);
  return data;
}

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text == null ? "" : String(text);
  if (cls) td.className = cls;
  return td;
}

function relative(iso) {
  if (!iso) return "";
  const s = Math.round((Date.parse(iso) - Date.now()) / 1000);
  const a = Math.abs(s);
  const v = a < 90 ? a + "s" : a < 5400 ? Math.round(a / 60) + "m"
          : a < 129600 ? Math.round(a / 3600) + "h" : Math.round(a / 86400) + "d";
  return s >= 0 ? "in " + v : v + " ago";
}

function local(iso) {
  return iso ? new Date(iso).toLocaleString() + " (" + relative(iso) + ")" : "";
}

function button(label, fn) {
  const b = document.createElement("button");
  b.textContent = label;
  b.addEventListener("click", async () => {
    try { await fn(); } catch (e) { alert(e.message); }
    refresh();
  });
  return b;
}

function when(s) {
  return s.cron || (s.every_secs != null ? "every " + s.every_secs + "s" : s.at);
}

async function loadSchedules() {
  const { schedules } = await api("GET", "/api/v1/schedules?limit=1000");
  const body = $("#schedules tbody");
  body.replaceChildren();
  for (const s of schedules) {
    const tr = document.createElement("tr");
    const n = encodeURIComponent(s.name);
    tr.append(cell(s.name), cell(when(s)), cell(s.timezone), cell(s.status, s.status),
              cell(local(s.next_fire_at)), cell(local(s.last_fired_at)));
    const ops = document.createElement("td");
    ops.append(s.status === "paused"
      ? button("resume", () => api("POST", `/api/v1/schedules/${n}/resume`))
      : button("pause", () => api("POST", `/api/v1/schedules/${n}/pause`)));
    ops.append(button("trigger", () => api("POST", `/api/v1/schedules/${n}/trigger`)));
    tr.append(ops);
    body.append(tr);
  }
}

async function loadRuns() {
  const { runs } = await api("GET", "/api/v1/runs?limit=50");
  const body = $("#runs tbody");
  body.replaceChildren();
  for (const r of runs) {
    const tr = document.createElement("tr");
    tr.append(cell(r.id), cell(r.workflow), cell(r.status, r.status), cell(r.trigger),
              cell(local(r.created_at)), cell(r.error));
    const ops = document.createElement("td");
    if (["pending", "running", "waiting"].includes(r.status))
      ops.append(button("cancel", () =>
        api("POST", `/api/v1/runs/${encodeURIComponent(r.id)}/cancel`)));
    tr.append(ops);
    body.append(tr);
  }
}

let pending = null;
function refresh() {
  if (pending) return;
  pending = setTimeout(async () => {
    pending = null;
    try {
      await Promise.all([loadSchedules(), loadRuns()]);
      $("#status").textContent = "live";
    } catch (e) {
      $("#status").textContent = e.message;
    }
  }, 200);
}

function showEvent(ev) {
  const li = document.createElement("li");
  li.textContent = `${ev.at} ${ev.type} ${ev.subject} ${JSON.stringify(ev.payload)}`;
  const list = $("#events");
  list.prepend(li);
  while (list.children.length > 200) list.lastChild.remove();
}

// The event stream, read with fetch so the token can travel in a header.
let reader = null;
async function follow() {
  if (reader) reader.cancel();
  let last = null;
  for (;;) {
    try {
      const h = headers();
      if (last) h["Last-Event-ID"] = last;
      const r = await fetch("/api/v1/events?follow=1", { headers: h });
      if (!r.ok) throw new Error(r.statusText);
      reader = r.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          for (const line of block.split("\n")) {
            if (line.startsWith("id: ")) last = line.slice(4);
            if (line.startsWith("data: ")) { showEvent(JSON.parse(line.slice(6))); refresh(); }
          }
        }
      }
    } catch (e) {
      $("#status").textContent = "reconnecting…";
    }
    await new Promise((res) => setTimeout(res, 2000));
  }
}

refresh();
follow();
setInterval(refresh, 10000);
