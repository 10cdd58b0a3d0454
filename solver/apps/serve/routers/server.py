"""The server itself: ``GET /api/health`` and the page (``/``, ``/static/…``)."""

from __future__ import annotations

from importlib import metadata, resources
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from solver.apps.serve.errors import JsonBodyRoute
from solver.apps.serve.models import HealthOut
from solver.apps.serve.state import AppState, app_state

__all__ = ["router", "mount_page", "STATIC"]

STATIC = resources.files("solver.apps.serve") / "static"

router = APIRouter(route_class=JsonBodyRoute)
State = Annotated[AppState, Depends(app_state)]


@router.get("/api/health", tags=["server"], operation_id="health", response_model=HealthOut, responses={
    503: {"model": HealthOut, "description": "broken: the worker processes cannot start"}})
def health(state: State, response: Response) -> HealthOut:
    """The server's state: workers (ready, busy), waiting and running tasks (no path, no process id)."""
    stats = state.pool.stats()
    if stats["broken"]:
        response.status_code = 503
    return HealthOut(status="broken" if stats["broken"] else "ok", version=metadata.version("quintet-solver"),
                     **stats, solver=not state.config.play_only)


@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
def page() -> FileResponse:
    return FileResponse(str(STATIC / "index.html"), headers={"Cache-Control": "no-cache"})


def mount_page(app: FastAPI) -> None:
    """The page's files under ``/static`` (all in the package: no CDN)."""
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
