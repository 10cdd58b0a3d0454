"""The server itself: ``GET /api/health``, ``GET /api/opponents`` and the page (``/``, ``/static/…``)."""

from __future__ import annotations

from importlib import metadata, resources
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from pydantic import Field

from quintet.schema import JsonModel
from solver.apps.serve.errors import JsonBodyRoute
from solver.apps.serve.models import HealthOut
from solver.apps.serve.state import AppState, app_state
from solver.play.puzzle import puzzle_opponents
from solver.problem.opponent_spec import MIXTURE_HELP, opponent_kinds

__all__ = ["router", "mount_page", "STATIC", "OpponentOut", "OpponentsOut"]

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
                     **stats, solver=not state.config.play_only, table_ttl=state.tables.config.ttl)


class OpponentOut(JsonModel):
    """One registered opponent model (``solver.problem.opponent_spec.OpponentKind``)."""

    name: str = Field(description="its spelling in an opponent specification")
    label: str = Field(description="a few words for a menu")
    help: str = Field(description="what the model is, one line")
    data: str | None = Field(description="the request's field its data come in (null: it needs none)")
    plays: str | None = Field(description="what the computer does when it plays it at a table (null: the computer "
                                          "only best-responds to it, br:NAME)")
    puzzle: bool = Field(description="a puzzle's opponent (GET /api/puzzles?opponent=NAME)")
    tournament: list[str] = Field(description="the strategies naming it in quintet-tournament's default round robin")


class OpponentsOut(JsonModel):
    """The opponent models, in the order registered: the page's menus read them."""

    models: list[OpponentOut]
    mixture: str = Field(description="how to write a mixture of models")


@router.get("/api/opponents", tags=["server"], operation_id="opponents", response_model=OpponentsOut)
def opponents() -> OpponentsOut:
    """The registered opponent models: names, labels, help, where the computer plays them."""
    puzzles = puzzle_opponents()
    return OpponentsOut(mixture=MIXTURE_HELP, models=[
        OpponentOut(name=k.name, label=k.label, help=k.help, data=k.data, plays=k.plays, puzzle=k.name in puzzles,
                    tournament=list(k.tournament)) for k in opponent_kinds()])


@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
def page() -> FileResponse:
    return FileResponse(str(STATIC / "index.html"), headers={"Cache-Control": "no-cache"})


def mount_page(app: FastAPI) -> None:
    """The page's files under ``/static`` (all in the package: no CDN)."""
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
