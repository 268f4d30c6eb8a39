// HTTP calls to the server. Failures throw ApiError; status 0 means the network failed.
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }

  get transient() {
    return this.status === 0 || this.status >= 500 || this.status === 429 || this.status === 408;
  }
}

const TIMEOUT_MS = 15000; // a dead spot can hold a request for minutes: give up and retry later

// The response and its JSON (null when empty); a status outside 2xx and 304 throws.
async function exchange(method, path, { token, body, etag } = {}) {
  const headers = { Accept: "application/json" };
  if (etag) headers["If-None-Match"] = etag;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      cache: "no-store",
      signal: abort.signal,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, "network", String(err));
  } finally {
    clearTimeout(timer);
  }
  let data = null;
  try {
    data = await response.json();
  } catch { /* empty or not JSON */ }
  if (!response.ok && response.status !== 304) {
    throw new ApiError(response.status, data?.error?.code ?? `http_${response.status}`, data?.error?.message ?? response.statusText);
  }
  return { response, data };
}

async function request(method, path, options) {
  return (await exchange(method, path, options)).data;
}

const game = (gid) => `/api/games/${encodeURIComponent(gid)}`;

export const api = {
  rulesets: () => request("GET", "/api/rulesets"),
  createGame: (body, token = null) => request("POST", "/api/games", { body, token }),
  addPlayer: (gid, token, body) => request("POST", `${game(gid)}/players`, { token, body }),
  addPlayers: (gid, token, players, commandId) =>
    request("POST", `${game(gid)}/players`, { token, body: { players, command_id: commandId } }),
  invites: (gid, token) => request("GET", `${game(gid)}/invites`, { token }),
  view: (gid, token) => request("GET", `${game(gid)}/view`, { token }),
  command: (gid, token, commandId, command) =>
    request("POST", `${game(gid)}/commands`, { token, body: { command_id: commandId, ...command } }),
  // The directory: {players} and its ETag, or {notModified: true} when `etag` is still current.
  directory: async (gid, token, etag = null) => {
    const { response, data } = await exchange("GET", `${game(gid)}/players`, { token, etag });
    if (response.status === 304) return { notModified: true, etag };
    return { players: data?.players ?? {}, etag: response.headers.get("ETag") };
  },
  events: (gid, token, after = 0) => request("GET", `${game(gid)}/events?after=${after}`, { token }),
};
