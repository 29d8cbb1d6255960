"""simnode against a real AvalancheGo node's recorded answers, without AvalancheGo.

tests/vectors/avalanchego_answers/session.json.gz was recorded by
`scripts/diff_avalanchego.py --sections genesis,corpus,vectors,evm,warp --record ...` beside a real
node (its README names the version): every call in order (reads, the must-reject corpus, the
signed txs) with the real node's reply; order.json.gz by `--sections order` (UTXOs piling up block
after block, read whole and page by page; P tx types 19 and 24). Replayed on a fresh simnode, each reply is compared field
by field with simnode/testing/differ.py's allowed list; what still differs must be on
simnode/testing/diff_known.py's list (deliberate or open), and every open entry must still be
found, so a fix takes its entry out."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from simnode.config import NodeConfig
from simnode.node import Node
from simnode.testing.diff_known import KNOWN, Known, classify
from simnode.testing.diff_txs import replay_recording

SESSIONS = Path(__file__).resolve().parents[1] / "vectors" / "avalanchego_answers"


@pytest.fixture(scope="module", params=["session.json.gz", "order.json.gz"])
def replayed(request):
    recording = json.loads(gzip.decompress((SESSIONS / request.param).read_bytes()))
    # the default log level: the first node of a process sets the display level of all (simnode/logs.py)
    handle = Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="wall"))
    try:
        yield recording, replay_recording(recording, handle.url)
    finally:
        handle.stop()


def test_simnode_answers_as_the_recorded_avalanchego_did(replayed):
    recording, differ = replayed
    assert differ.calls == len(recording) > 800
    counts, new = classify(differ.divergences)
    assert not new, f"{len(new)} divergences:\n" + "\n".join(d.line() for d in new[:60])
    still_open = {k for k in counts if k.kind == "open"}
    fixed = [k.reason for k in KNOWN if k.kind == "open" and k not in still_open and _recorded(recording, k)]
    assert not fixed, f"no longer diverges, take it out of diff_known.KNOWN: {fixed}"


def _recorded(recording: list[dict], k: Known) -> bool:
    """Does the recorded session hold a call this open entry is about?"""
    return any(re.search(k.method, r["body"].get("method", "") if isinstance(r["body"], dict) else r["label"])
               and re.search(k.label, r["label"]) for r in recording)
