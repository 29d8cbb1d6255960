"""kill -9 of a node with an L1 and ICM messages in flight (crash_l1.py says what a trial sends and
checks): after each restart every acknowledged tx is in a block, every message is received exactly
once, and the Data API agrees with both chains. scripts/crash_trials.py runs 100 of these."""

from __future__ import annotations

import random

from .crash_l1 import prepare, trial


def test_kill_9_with_an_l1_and_messages_in_flight(tmp_path):
    data = tmp_path / "data"
    setup = prepare(data)
    rng = random.Random(27)
    for relayer_off in (True, False, True):
        out = trial(data, setup, rng, relayer_off)
        assert out.ok, (out.lost, out.not_once, out.index_disagrees)
        assert out.acked > 0 and out.messages > 0
