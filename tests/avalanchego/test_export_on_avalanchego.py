"""`simnode export-network` on real AvalancheGo nodes (issue 25, point 4): the exported network
boots on five real nodes, every carried value reads as on the source, the L1 runs again validated
by the exported nodes, new txs are accepted, and a scenario run with `replay --target` ends with the
balances it ends with on simnode from the same export."""

from __future__ import annotations

import pytest

from simnode.testing.export_trial import run_trial
from simnode.testing.realnet import binaries_from_env

pytestmark = pytest.mark.avalanchego


@pytest.fixture(scope="module")
def trial(tmp_path_factory):
    binaries = binaries_from_env()
    if isinstance(binaries, str):
        pytest.skip(binaries)
    return run_trial(tmp_path_factory.mktemp("avago-export"), binaries, nodes=5, log=lambda s: None)


def test_every_carried_value_reads_the_same_on_every_real_node(trial):
    assert len(trial.comparisons) == 5
    for c in trial.comparisons:
        assert c.differences == []
        assert c.counts["C storage slots"] > 10 and c.counts["X balances"] > 3 and c.counts["P balances"] > 3


def test_the_l1_is_made_again_validated_by_the_exported_nodes(trial):
    assert set(trial.l1s) == {"exportl1"}
    assert len(trial.l1_validators_real) == 5 and trial.l1_reads_agree
    assert trial.l1_validators_real == trial.l1_validators_exported == trial.l1_validators_simnode
    was, real = trial.l1_managers["exportl1"]
    assert real == was and real[0] is False


def test_the_l1_chain_runs_on_the_real_nodes_with_the_exported_state(trial):
    if trial.l1_chain_skipped:
        pytest.skip(trial.l1_chain_skipped)
    for c in trial.comparisons:
        assert c.counts["L1 exportl1 storage slots"] > 3 and c.counts["L1 exportl1 balances"] > 3
    assert all(r["exportl1"] == 5 * 10**17 for r in trial.new_txs.values())


def test_new_txs_are_accepted_and_every_node_reads_them(trial):
    reads = list(trial.new_txs.values())
    assert {k: reads[0][k] for k in ("C", "X", "P")} == {"C": 125 * 10**16, "X": 2 * 10**9, "P": 3 * 10**9}
    assert all(r == reads[0] for r in reads)


def test_a_scenario_replayed_on_them_ends_as_on_simnode(trial):
    assert trial.replay_exit == 0, trial.replay_output
    assert trial.replay_real and trial.replay_real == trial.replay_simnode and trial.replay_nodes_agree


def test_c_chain_storage_roots_are_the_same_on_the_source_and_the_real_nodes(trial):
    """coreth keys a slot with the lowest bit of its first byte cleared, and so does simnode's C-Chain
    (the exported token and NFT have such slots): each alloc account's storage root is the same on
    simnode and on every real node, and is the root of the alloc's slots under that rule."""
    for c in trial.comparisons:
        assert c.counts["C storage roots"] > 4
        assert not [d for d in c.differences if "storage root" in d]
