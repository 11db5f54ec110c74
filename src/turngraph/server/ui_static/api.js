// The JSON API, called with the key the person signed in with. The key lives in this tab's
// sessionStorage only: never in a URL, never in a cookie.

const KEY = "turngraph.key";
const TIERS = ["read", "read_write", "full"];

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export function key() {
  return sessionStorage.getItem(KEY);
}

export function signIn(value) {
  sessionStorage.setItem(KEY, value);
}

export function signOut() {
  sessionStorage.removeItem(KEY);
}

/** Whether ``tier`` (the caller's on a memory) allows what ``needed`` names. */
export function allows(tier, needed) {
  return TIERS.indexOf(tier) >= TIERS.indexOf(needed) && TIERS.indexOf(needed) >= 0;
}

export function m(memory, ...rest) {
  return ["/v1/memories", encodeURIComponent(memory), ...rest].join("/");
}

/** Call the API: api("GET", path, {query, json}); the parsed JSON body, or an ApiError. */
export async function api(method, path, { query, json, raw } = {}) {
  const headers = { Authorization: `Bearer ${key() || ""}` };
  let body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  }
  let url = path;
  if (query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
    }
    if ([...q].length) url += `?${q}`;
  }
  const response = await fetch(url, { method, headers, body, credentials: "omit" });
  if (!response.ok) {
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    const message = (data && data.message) || `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message, data);
  }
  if (raw) return response;
  if (response.status === 204) return null;
  return response.json();
}

const infos = new Map();

/** A memory's record (counts, retrieval configuration, the caller's tier), read fresh. */
export async function memoryInfo(memory) {
  const info = await api("GET", m(memory));
  infos.set(memory, info);
  return info;
}

/** The caller's tier on a memory (read once per page view at most). */
export async function tierOn(memory) {
  if (!infos.has(memory)) await memoryInfo(memory);
  return infos.get(memory).tier;
}

export function forget() {
  infos.clear();
}
