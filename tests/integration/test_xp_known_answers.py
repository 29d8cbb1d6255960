"""X- and P-Chain answers a real AvalancheGo node gave, without AvalancheGo (issue 25):

- the X-Chain's genesis block (parent: the stop vertex AvalancheGo builds on an empty DAG), as
  avm.getBlockByHeight, avm.getBlock, /ext/health and the Data API show it;
- an address's UTXOs newest first, on a data dir written before simnode kept that order: reopened,
  it answers the real node's recorded pages (tests/vectors/avalanchego_answers/order.json.gz)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from simnode.config import NodeConfig
from simnode.node import Node
from simnode.store import Store
from simnode.testing.diff_known import classify
from simnode.testing.diff_txs import replay_recording

from .dataapi import api
from .rpc import call

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def recording(name: str) -> list[dict]:
    return json.loads(gzip.decompress((VECTORS / "avalanchego_answers" / name).read_bytes()))


def real_reply(name: str, label: str, method: str) -> dict:
    return next(json.loads(r["reply"]) for r in recording(name)
                if r["label"] == label and isinstance(r["body"], dict) and r["body"].get("method") == method)


def test_the_x_genesis_block_is_avalanchegos():
    real = next(json.loads(r["reply"])["result"] for r in recording("session.json.gz")
                if isinstance(r["body"], dict) and r["body"].get("method") == "avm.getBlockByHeight"
                and r["body"]["params"].get("height") == 0)
    started = json.loads((VECTORS / "avalanchego_bootstrap_health.json").read_text())["answers"]
    healthy = next(json.loads(a["reply"]) for a in reversed(started) if a["path"] == "/ext/health"
                   and a["http_method"] == "GET" and a["status"] == 200)
    real_id = healthy["checks"]["X"]["message"]["engine"]["consensus"]["lastAcceptedID"]
    assert real["block"]["id"] == real_id == "2R2UY2pZMQr8nR9ywCdqn97Lp5a6hceqtLXkag6vH7KQSVvmst"
    handle = Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True))
    try:
        url = handle.url
        assert call(url + "/ext/bc/X", "avm.getBlockByHeight", {"height": 0, "encoding": "json"}) == real
        assert call(url + "/ext/bc/X", "avm.getBlock", {"blockID": real_id, "encoding": "json"}) == real
        health = call(url + "/ext/health", "health.health")
        assert health["checks"]["X"]["message"]["engine"]["consensus"]["lastAcceptedID"] == real_id
        block = api(url, "/v1/networks/fuji/blockchains/x-chain/blocks/0")
        assert (block["blockHash"], block["parentHash"]) == (real_id, real["block"]["parentID"])
    finally:
        handle.stop()


def _downgrade(db: Path) -> int:
    """Rewrite the UTXO address rows as simnode wrote them before it kept AvalancheGo's order:
    one empty row per owner, no order rows, no markers."""
    store = Store.open(db)
    batch = store.batch()
    rows = 0
    try:
        bases = [b"X/", b"P/"] + sorted({k[:71] for k, _ in store.iterate(b"atomic/") if len(k) > 71})
        for base in bases:
            for key, _ in store.iterate(base + b"a"):
                batch.put(key, b"")
                rows += 1
            for key, _ in store.iterate(base + b"o"):
                batch.delete(key)
            batch.delete(base + b"N")
            batch.delete(base + b"O")
        batch.delete(b"atomic/O")
        batch.commit()
    finally:
        store.close()
    return rows


def test_a_data_dir_written_before_the_order_was_kept_answers_in_avalanchegos_order(tmp_path):
    session = recording("order.json.gz")
    issued = [i for i, r in enumerate(session) if isinstance(r["body"], dict)
              and r["body"].get("method", "").endswith("issueTx") and not r["label"].startswith("order ")]
    txs = [session[i] for i in issued]
    final_reads = [r for r in session[issued[-1] + 1:] if r["label"].startswith("order ")
                   and "issueTx" not in r["body"]["method"]]
    assert len(txs) == 12 and len(final_reads) > 40

    config = NodeConfig(http_port=0, data_dir=tmp_path, clock_mode="wall")
    handle = Node.start_in_thread(config)
    try:
        replay_recording(txs, handle.url)
    finally:
        handle.stop()
    assert _downgrade(tmp_path / "db") >= 17

    handle = Node.start_in_thread(config)
    try:
        differ = replay_recording(final_reads, handle.url)
    finally:
        handle.stop()
    counts, new = classify(differ.divergences)
    assert not new, "\n".join(d.line() for d in new[:20])
    store = Store.open(tmp_path / "db")
    try:
        assert all(value for _, value in store.iterate(b"X/a")) and store.get(b"atomic/O") is not None
    finally:
        store.close()
