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

async function request(method, path, { token, body } = {}) {
  const headers = { Accept: "application/json" };
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
  if (!response.ok) {
    throw new ApiError(response.status, data?.error?.code ?? `http_${response.status}`, data?.error?.message ?? response.statusText);
  }
  return data;
}

const game = (gid) => `/api/games/${encodeURIComponent(gid)}`;

export const api = {
  createGame: (body) => request("POST", "/api/games", { body }),
  addPlayer: (gid, token, body) => request("POST", `${game(gid)}/players`, { token, body }),
  addPlayers: (gid, token, players, commandId) =>
    request("POST", `${game(gid)}/players`, { token, body: { players, command_id: commandId } }),
  invites: (gid, token) => request("GET", `${game(gid)}/invites`, { token }),
  view: (gid, token) => request("GET", `${game(gid)}/view`, { token }),
  command: (gid, token, commandId, command) =>
    request("POST", `${game(gid)}/commands`, { token, body: { command_id: commandId, ...command } }),
  events: (gid, token, after = 0) => request("GET", `${game(gid)}/events?after=${after}`, { token }),
};
