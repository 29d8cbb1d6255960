"""simnode against a real AvalancheGo node's recorded answers, without AvalancheGo.

tests/vectors/avalanchego_answers/session.json.gz was recorded by
`scripts/diff_avalanchego.py --sections genesis,corpus,vectors,evm,warp --record ...` beside a real
node (its README names the version): every call in order (reads, the must-reject corpus, the
signed txs) with the real node's reply. Replayed on a fresh simnode, each reply is compared field
by field with simnode/testing/differ.py's allowed list. OPEN lists what still differs, exactly, so
a fix must take its entry out and a new divergence fails."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from simnode.config import NodeConfig
from simnode.node import Node
from simnode.testing.diff_txs import replay_recording

SESSION = Path(__file__).resolve().parents[1] / "vectors" / "avalanchego_answers" / "session.json.gz"

# (label, JSON path) of every divergence still open; docs/avalanchego-differential.md says why.
OPEN: set[tuple[str, str]] = set()


@pytest.fixture(scope="module")
def replayed():
    recording = json.loads(gzip.decompress(SESSION.read_bytes()))
    handle = Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="wall", log_level="WARN"))
    try:
        yield recording, replay_recording(recording, handle.url)
    finally:
        handle.stop()


def test_simnode_answers_as_the_recorded_avalanchego_did(replayed):
    recording, differ = replayed
    assert differ.calls == len(recording) > 1000
    found = {(d.call.label, d.where) for d in differ.divergences}
    unexpected = [d.line() for d in differ.divergences if (d.call.label, d.where) not in OPEN]
    assert not unexpected, f"{len(unexpected)} divergences:\n" + "\n".join(unexpected[:60])
    assert OPEN <= found, f"fixed, take out of OPEN: {sorted(OPEN - found)}"
