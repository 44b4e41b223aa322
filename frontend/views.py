"""Web pages; thin: they read through selectors and render templates."""
from __future__ import annotations

from django.shortcuts import render

from games import selectors
from games.models import Match


def home(request):
    running = selectors.match_list(status=Match.Status.RUNNING).prefetch_related("seat_set__user")[:20]
    finished = selectors.match_list(status=Match.Status.FINISHED).prefetch_related("seat_set__user")[:20]
    return render(
        request,
        "frontend/home.html",
        {
            "games": selectors.game_list(),
            "running": [selectors.match_summary(m) for m in running],
            "finished": [selectors.match_summary(m) for m in finished],
        },
    )
