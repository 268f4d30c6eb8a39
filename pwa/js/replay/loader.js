// Reads a game's log (GET /events?after=N) as NDJSON, line by line as it arrives, in batches.
// A connection cut in the middle resumes with after=<the last whole event>, so nothing is read
// twice; a refusal (401, 403, 404) stops at once. No DOM here: it runs in the Web Worker too.

export class LogError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const RETRIES = 4;

// onBatch(events) is awaited (the main thread yields there). Answers the last seq read.
export async function streamLog({ gid, token, after = 0, batchSize = 1000, onBatch }) {
  let last = after;
  let batch = [];
  const flush = async () => {
    if (!batch.length) return;
    const out = batch;
    batch = [];
    await onBatch(out);
  };
  const take = async (line) => {
    if (!line.trim()) return;
    const event = JSON.parse(line);
    if (event.seq <= last) return; // already read before a resume
    batch.push(event);
    last = event.seq;
    if (batch.length >= batchSize) await flush();
  };
  for (let attempt = 0; ; attempt += 1) {
    try {
      const response = await fetch(`/api/games/${encodeURIComponent(gid)}/events?after=${last}`, {
        headers: { Accept: "application/x-ndjson", Authorization: `Bearer ${token}` },
        cache: "no-store",
      });
      if (!response.ok) {
        let error = null;
        try {
          error = (await response.json())?.error;
        } catch { /* not JSON */ }
        throw new LogError(response.status, error?.code ?? `http_${response.status}`, error?.message ?? response.statusText);
      }
      if (!response.body?.getReader) {
        for (const line of (await response.text()).split("\n")) await take(line);
      } else {
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let rest = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          rest += decoder.decode(value, { stream: true });
          const lines = rest.split("\n");
          rest = lines.pop();
          for (const line of lines) await take(line);
        }
        await take(rest + decoder.decode());
      }
      await flush();
      return last;
    } catch (err) {
      await flush();
      const refused = err instanceof LogError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;
      if (refused || attempt >= RETRIES) throw err instanceof LogError ? err : new LogError(0, "network", String(err));
      await new Promise((resolve) => { setTimeout(resolve, 400 * 2 ** attempt); });
    }
  }
}
