"""``quintet-serve``: the advisor as an HTTP JSON API and a web page, from one local process.

* ``app`` — the FastAPI application (``create_app``): the routers, the error handlers, the page;
* ``routers`` — the endpoints by concern: ``solve`` (solves and jobs), ``game`` (show-downs,
  hands, draw advice, deals, rule sets), ``tables`` (play on the page), ``server`` (health, the
  page);
* ``tables/`` — the tables played on the page: the service, views, events, scheduling, their
  store, models and worker tasks;
* ``models`` — typed requests and the server's responses (the solver's answers are
  ``solver.advisor.schema``'s);
* ``errors`` — every error as one line, request bodies checked before they are read;
* ``state`` — the configuration (``ServeConfig``), the pool and the stop shared by the endpoints;
* ``jobs`` — the worker pool: bounded lanes of tasks, jobs with progress and cancel;
* ``worker`` — the worker process;
* ``cli`` — the ``quintet-serve`` command;
* ``static/`` — the page (HTML, CSS, JavaScript modules; no build step, no CDN).

``docs/http-api.md`` is the API's reference.
"""
