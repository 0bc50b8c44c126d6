// The dashboard's only door to the server: the HTTP API (docs/api.md),
// with the token from session storage sent as a header (never in a URL),
// and the event stream read with fetch, which can send that header
// (EventSource cannot), resumed with Last-Event-ID after a drop, even one
// that came before any event (it starts after the newest event stored).

const KEY = "sked.token";
let askToken = () => {};

export function token() {
  return sessionStorage.getItem(KEY) || "";
}

export function setToken(t) {
  if (t) sessionStorage.setItem(KEY, t);
  else sessionStorage.removeItem(KEY);
}

// FN is called when the server answers 401: the page asks for a token.
export function onUnauthorized(fn) {
  askToken = fn;
}

export class ApiError extends Error {
  constructor(status, error) {
    super(error && error.message ? error.message : "HTTP " + status);
    this.status = status;
    this.code = error ? error.code : "";
    this.field = error ? error.field || "" : "";
  }
}

function headers(extra) {
  const h = Object.assign({ Accept: "application/json" }, extra || {});
  const t = token();
  if (t) h.Authorization = "Bearer " + t;
  return h;
}

// A query string of PARAMS, leaving out empty values.
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? "?" + s : "";
}

export async function api(method, path, body) {
  const init = { method, headers: headers() };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  let r;
  try {
    r = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, { code: "network", message: "the server cannot be reached" });
  }
  const text = await r.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    data = null;
  }
  if (r.status === 401) askToken();
  if (!r.ok) throw new ApiError(r.status, data && data.error);
  return data;
}

export const get = (path) => api("GET", path);
export const post = (path, body) => api("POST", path, body);

// Every page of a list route: ITEMS names the array; at most MAX items.
export async function getAll(path, items, max) {
  const out = [];
  let cursor = "";
  for (;;) {
    const sep = path.includes("?") ? "&" : "?";
    const page = await get(path + sep + "limit=1000" +
      (cursor ? "&cursor=" + encodeURIComponent(cursor) : ""));
    out.push(...page[items]);
    cursor = page.next_cursor;
    if (!cursor || out.length >= max) return out;
  }
}

// ---- the event stream ----------------------------------------------------

const listeners = new Set();
const stateListeners = new Set();
let lastId = "";
let controller = null;
let state = { connected: false, message: "connecting…" };

// Call FN with every event of the stream; returns the unsubscribe.
export function onEvent(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// Call FN with {connected, message} whenever the stream's state changes.
export function onStreamState(fn) {
  stateListeners.add(fn);
  fn(state);
  return () => stateListeners.delete(fn);
}

function setState(connected, message) {
  state = { connected, message };
  for (const fn of stateListeners) fn(state);
}

function dispatch(block) {
  let id = "", data = "";
  for (const raw of block.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line === "" || line.startsWith(":")) continue;
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? "" : line.slice(i + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "id") id = value;
    else if (field === "data") data += (data ? "\n" : "") + value;
  }
  if (id) lastId = id;
  if (!data) return;
  let ev;
  try {
    ev = JSON.parse(data);
  } catch (e) {
    return;
  }
  for (const fn of listeners) {
    try {
      fn(ev);
    } catch (e) {
      console.error(e);
    }
  }
}

// Where the first connection starts: after the newest event stored. A
// stream opened without an id starts with the events written from then
// on, so one that drops before any event came would lose, on
// reconnecting, those written while the server was away. "0" when none is
// stored (then from the first); "" for an older server without
// after=latest (from now on, as before).
async function newestId() {
  try {
    const r = await get("/api/v1/events?after=latest");
    return r && r.next_cursor != null ? String(r.next_cursor) : "0";
  } catch (e) {
    if (e.status === 400 || e.status === 422) return "";
    if (e.status === 401) e.unauthorized = true;
    throw e;
  }
}

async function readOnce(signal) {
  if (!lastId) lastId = await newestId();
  if (signal.aborted) throw new Error("stopped");
  const h = headers({ Accept: "text/event-stream" });
  if (lastId) h["Last-Event-ID"] = lastId;
  const r = await fetch("/api/v1/events?follow=1", { headers: h, signal });
  if (r.status === 401) {
    askToken();
    const e = new Error("the server wants a token");
    e.unauthorized = true;
    throw e;
  }
  if (!r.ok || !r.body) throw new Error("HTTP " + r.status);
  setState(true, "live");
  const reader = r.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the stream ended");
    buf += dec.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      dispatch(buf.slice(0, i));
      buf = buf.slice(i + 2);
    }
  }
}

const sleep = (ms, signal) => new Promise((res) => {
  const t = setTimeout(res, ms);
  signal.addEventListener("abort", () => { clearTimeout(t); res(); }, { once: true });
});

// Follow the stream until stopped, reconnecting after 1 s, doubled up to
// 15 s; a drop is told at once. Calling it again restarts (a new token).
export function startStream() {
  if (controller) controller.abort();
  const c = new AbortController();
  controller = c;
  (async () => {
    let wait = 1000;
    while (!c.signal.aborted) {
      const began = Date.now();
      try {
        await readOnce(c.signal);
      } catch (e) {
        if (c.signal.aborted) return;
        if (e.unauthorized) {
          // Until a token is given (startStream is called again).
          setState(false, "disconnected: the server wants a token");
          return;
        }
        if (Date.now() - began > 30000) wait = 1000;
        setState(false, "disconnected from the event stream (" + e.message +
          "); reconnecting in " + Math.round(wait / 1000) + " s");
      }
      await sleep(wait, c.signal);
      wait = Math.min(wait * 2, 15000);
    }
  })();
}
