"""The L1 part of the differential check (opt-in: -m avalanchego): five real nodes from an export and
simnode from the same genesis take the same ConvertSubnetToL1, RegisterL1Validator and
SetL1ValidatorWeight txs (Warp messages signed by the L1's validators) and answer every platform
read of the L1 and its chain's eth_* reads alike (simnode/testing/diff_l1.py)."""

from __future__ import annotations

import pytest

from simnode.testing.diff_known import classify
from simnode.testing.diff_l1 import run_l1_diff
from simnode.testing.realnet import binaries_from_env

pytestmark = pytest.mark.avalanchego


@pytest.fixture(scope="module")
def l1_run(tmp_path_factory):
    binaries = binaries_from_env()
    if isinstance(binaries, str):
        pytest.skip(binaries)
    why = binaries.l1_problem
    if why:
        pytest.skip(why)
    return run_l1_diff(tmp_path_factory.mktemp("avago-l1-diff"), binaries, log=lambda s: None)


def test_the_l1_txs_are_taken_alike_and_every_read_agrees(l1_run):
    assert not [line for line in l1_run.log if "stopped" in line], l1_run.log
    committed = [line for line in l1_run.log if line.startswith(("p-register", "p-set-weight", "p-convert"))]
    assert len(committed) == 5 and all("real=Committed sim=Committed" in line for line in committed), committed
    refused = [line for line in l1_run.log if line.startswith("reject ")]
    assert len(refused) == 2 and all("rejected by both" in line for line in refused), refused
    _, new = classify(l1_run.differ.divergences)
    assert not new, "\n".join(d.line() for d in new[:80])
    assert l1_run.differ.calls > 300


def test_the_l1_chain_ran_on_the_real_nodes(l1_run):
    assert l1_run.track_seconds > 0
    assert any(line.startswith("L1 transfer: real={'jsonrpc'") and "'result': '0x" in line for line in l1_run.log)
