// The JSON API: requests, errors as {"error": "..."}, and jobs followed by server-sent events.

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** ``method`` ``path`` with a JSON body; resolves to {status, data}, throws ApiError. */
export async function call(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
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
 * final job.  Uses server-sent events; falls back to polling once a second.
 */
export function followJob(job, onUpdate) {
  return new Promise((resolve, reject) => {
    const finished = (j) => ["done", "cancelled", "failed"].includes(j.status);
    if (finished(job)) {
      onUpdate(job);
      resolve(job);
      return;
    }
    let source = null;
    const poll = async () => {
      try {
        const { data } = await call("GET", `/api/jobs/${job.job}`);
        onUpdate(data);
        if (finished(data)) resolve(data);
        else setTimeout(poll, 1000);
      } catch (e) {
        reject(e);
      }
    };
    if (!window.EventSource) {
      poll();
      return;
    }
    source = new EventSource(`/api/jobs/${job.job}/events`);
    source.addEventListener("job", (event) => {
      const data = JSON.parse(event.data);
      onUpdate(data);
      if (finished(data)) {
        source.close();
        resolve(data);
      }
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED || source.readyState === EventSource.CONNECTING) {
        source.close();
        poll();
      }
    };
  });
}
