"""``quintet-serve``: the advisor as an HTTP JSON API and a web page, from one local process.

* ``app`` — the FastAPI application (``create_app``): endpoints, errors, the page;
* ``models`` — typed requests and responses;
* ``jobs`` — the worker pool: bounded lanes of tasks, jobs with progress and cancel;
* ``worker`` — the worker process;
* ``cli`` — the ``quintet-serve`` command;
* ``static/`` — the page (HTML, CSS, JavaScript modules; no build step, no CDN).
"""
