"""The endpoints of ``quintet-serve``, by concern: ``solve`` (solves and jobs), ``game`` (show-downs,
hands, draw advice, deals, rule sets), ``tables`` (play on the page), ``server`` (health, the page)."""
