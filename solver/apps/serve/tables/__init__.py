"""The tables of ``quintet-serve``: Quintet played on the page against the computer, or a friend by
a link (the HTTP endpoints: ``solver.apps.serve.routers.tables``).

* ``service`` — ``TableService``: a seat's moves, checked and answered with its view;
* ``views`` — ``seat_view``, the one function every view and event goes through;
* ``events`` — the event streams (who follows which table);
* ``scheduler`` — the tables' thread and their jobs in the worker pool;
* ``work`` — what a game needs from the pool (the computer's draw, the equilibrium, records);
* ``tasks`` — those tasks as the worker runs them (``TableTask``: one small task per action);
* ``store`` — the tables file (SQLite);
* ``models`` — the requests and responses of ``/api/tables``;
* ``errors`` — what a table refuses, by kind.
"""
