"""Nodes starting at once in one process: the switch interval is short while any of them loads
its deferred chains and, once the last is done, the one found before the first began."""

from __future__ import annotations

import sys

from simnode.startup import SWITCH_INTERVAL, short_switch_interval


def test_overlapping_starts_put_back_the_interval_found_before_the_first():
    before = sys.getswitchinterval()
    first, second = short_switch_interval(), short_switch_interval()
    first.__enter__()
    assert sys.getswitchinterval() == SWITCH_INTERVAL
    second.__enter__()
    first.__exit__(None, None, None)  # the first node is up, the second still loading
    assert sys.getswitchinterval() == SWITCH_INTERVAL
    second.__exit__(None, None, None)
    assert sys.getswitchinterval() == before
