// @ts-check
// The JSON API: requests, errors as {"error": "..."}, and jobs followed by server-sent events
// (read with fetch: a job's calls, like a table's, send its secret as Authorization: Bearer).
// Paths are relative to the page (a leading "/" is dropped): behind a proxy the page may live
// under a sub-path (HOST/quintet/), and its API is then under it too.

/** ``path`` ("/api/…" or "api/…") relative to the page's own address. */
export function apiUrl(path) {
  return path.replace(/^\/+/, "");
}

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** ``method`` ``path`` with a JSON body (and a seat's ``token``: Authorization: Bearer;
 * ``signal``: an AbortSignal that cancels it); resolves to {status, data}, throws ApiError
 * (an AbortError once ``signal`` aborts). */
export async function call(method, path, body, { token = null, signal = undefined } = {}) {
  let response;
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  try {
    response = await fetch(apiUrl(path), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      signal,
    });
  } catch (e) {
    if (signal && signal.aborted) throw e;
    throw new ApiError(`cannot reach the server (${e.message})`, 0);
  }
  let data = null;
  try {
    data = await response.json();
  } catch (e) {
    throw new ApiError(`the server answered ${response.status} without JSON`, response.status);
  }
  if (!response.ok) {
    const retry = response.headers.get("Retry-After");
    const message = (data && data.error) || `HTTP ${response.status}`;
    throw new ApiError(retry ? `${message} (retry after ${retry} s)` : message, response.status);
  }
  return { status: response.status, data };
}

/**
 * Follow a job until it is finished: ``onUpdate(job)`` at every change.  Resolves to the
 * final job.  ``job`` is the 202 answer that started it: its ``secret`` is sent with every
 * call about it (Authorization: Bearer).  Reads the job's server-sent events (``readEvents``,
 * the one event reader); if the stream breaks, asks for the job once a second until it is
 * finished.
 */
export async function followJob(job, onUpdate) {
  const finished = (j) => ["done", "cancelled", "failed"].includes(j.status);
  onUpdate(job);
  if (finished(job)) return job;
  let last = job;
  const controller = new AbortController();
  try {
    await readEvents(`api/jobs/${job.job}/events`, job.secret, (kind, data) => {
      if (kind !== "job") return;
      last = data;
      onUpdate(data);
      if (finished(data)) controller.abort();
    }, controller.signal);
  } catch (e) {
    if (!controller.signal.aborted && e instanceof ApiError && e.status === 404) throw e;
  }
  while (!finished(last)) {
    await new Promise((r) => setTimeout(r, 1000));
    last = (await call("GET", `api/jobs/${job.job}`, undefined, { token: job.secret })).data;
    onUpdate(last);
  }
  return last;
}

/**
 * Read server-sent events (``path``; a table's with the seat's ``token``, a job's with none):
 * ``onEvent(kind, data)`` for each.  EventSource cannot send an Authorization header, so every
 * stream is read with fetch.  Resolves when the server ends the stream; throws ApiError for a
 * refused one (an AbortError once ``signal`` aborts).
 */
export async function readEvents(path, token, onEvent, signal) {
  const headers = { Accept: "text/event-stream" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(apiUrl(path), { headers, signal, cache: "no-store" });
  if (!response.ok) {
    let message = `HTTP ${response.status}`;
    try {
      message = (await response.json()).error || message;
    } catch (e) {
      // not JSON: the status says it
    }
    throw new ApiError(message, response.status);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const chunk = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let kind = "message";
      const data = [];
      for (const line of chunk.split("\n")) {
        if (line.startsWith("event:")) kind = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      if (data.length) onEvent(kind, JSON.parse(data.join("\n")));
    }
  }
}
