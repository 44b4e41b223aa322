"""The card-motion benchmark's frame accounting on hand-made frames (the browser run is the
benchmark's own, never asserted here)."""
from __future__ import annotations

import math

from bench.motion import AFTER_MOVE_MS, frame_figures

INTERVAL = 16.7


def test_a_frame_counts_as_dropped_past_one_and_a_half_intervals_and_in_flight_at_either_end():
    # (time ms, a flight running, table head, flights so far)
    frames = [(0.0, False, 5, 0), (16.7, False, 5, 0), (66.7, True, 6, 2), (83.4, True, 6, 2),
              (100.1, False, 6, 2), (125.0, False, 6, 2)]
    figures = frame_figures(frames, INTERVAL)
    assert figures["overall"]["frames"] == 5
    assert figures["overall"]["dropped"] == 1  # 50 ms; 24.9 ms is under 1.5 intervals
    # The frame that drew the move and started the flights, the one in flight, the one it landed in.
    assert figures["flying"]["frames"] == 3
    assert figures["flying"]["dropped"] == 1
    assert figures["flying"]["max_ms"] == 50.0


def test_a_moves_frames_start_with_the_frame_that_drew_it_and_last_the_window():
    frames = [(0.0, False, 5, 0), (16.7, False, 5, 0)]
    frames += [(16.7 + 30.0 * step, False, 6, 0) for step in range(1, 40)]  # the head moved after the second
    figures = frame_figures(frames, INTERVAL)
    assert figures["after_move"]["frames"] == math.ceil(AFTER_MOVE_MS / 30)
    assert figures["flying"]["frames"] == 0
