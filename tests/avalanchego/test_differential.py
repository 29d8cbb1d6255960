"""simnode beside a real AvalancheGo node (opt-in: -m avalanchego): the same genesis, the same
signed txs, every read compared field by field (simnode/testing/differ.py lists what may differ)."""

from __future__ import annotations

import json
import urllib.request

import pytest

from simnode.testing import diff_reads as R
from simnode.testing.avalanchego import rpc
from simnode.testing.diff_known import classify
from simnode.testing.diff_sections import SECTIONS, Harness
from simnode.testing.differ import Differ

pytestmark = pytest.mark.avalanchego


def test_the_real_node_is_up_and_healthy(real_node):
    for chain in ("P", "X", "C"):
        assert rpc(f"{real_node.url}/ext/info", "info.isBootstrapped", {"chain": chain})["result"] == {"isBootstrapped": True}
    with urllib.request.urlopen(f"{real_node.url}/ext/health") as resp:
        assert json.loads(resp.read())["healthy"] is True
    assert rpc(f"{real_node.url}/ext/info", "info.getNetworkID", {})["result"] == {"networkID": "12345"}


@pytest.fixture(scope="module")
def harness(real_node, sim_node) -> Harness:
    return Harness(Differ(real_node.url, sim_node))


def _run(harness: Harness, section: str) -> list[str]:
    """The section's divergences that neither the allowed list nor the known list explains."""
    before = len(harness.differ.divergences)
    SECTIONS[section](harness)
    _, new = classify(harness.differ.divergences[before:])
    return [d.line() for d in new]


# Module order matters: each section builds on the state the previous ones left on both nodes.
@pytest.mark.parametrize("section", list(SECTIONS))
def test_section_answers_alike(harness, section):
    diverged = _run(harness, section)
    assert not diverged, f"{len(diverged)} divergences:\n" + "\n".join(diverged[:80])
    assert not [line for line in harness.log if "stopped" in line]


def test_both_nodes_hold_the_same_balances_at_the_end(harness):
    before = len(harness.differ.divergences)
    harness.compare_all(R.address_reads())
    assert classify(harness.differ.divergences[before:])[1] == []
    assert harness.differ.calls > 3000
