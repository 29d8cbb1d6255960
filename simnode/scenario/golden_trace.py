"""Golden traces: what a replay produced, read back through the public APIs, and compared.

A trace holds, per chain, every block from genesis to the tip as [height, ID, state root]
(the C-Chain's and the L1 EVM chains' stateRoot, an L1 by its blockchain ID for the chains the
scenario's EVM steps ran on; X and P blocks have no state root, their IDs commit to their
parents and txs), the tx IDs each step sent, the final balances of the named accounts and the
virtual time at the start and the end. `compare` reports the first divergence.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .transport import ErrorReply, Transport

if TYPE_CHECKING:
    from .accounts import Account
    from .evm import EvmClient
    from .model import Scenario
    from .stats import RunStats, TxRecord
    from .xp import XPClient

TRACE_FORMAT = 1


class TracedRunner(Protocol):
    """What recording a trace reads of the runner after a run (runner.Runner is one)."""

    transport: Transport
    scenario: Scenario
    accounts: dict[str, Account]
    stats: RunStats
    txs: list[TxRecord]
    l1_evms: dict[str, EvmClient]

    @property
    def xp(self) -> XPClient: ...

    def heights(self) -> dict[str, int]: ...


def _evm_blocks(r: TracedRunner, endpoint: str, height: int) -> list[list[Any]]:
    out = []
    for n in range(height + 1):
        b = r.transport.call(endpoint, "eth_getBlockByNumber", [hex(n), False])
        out.append([n, b["hash"], b["stateRoot"]])
    return out


def _snowman_blocks(r: TracedRunner, chain: str, height: int) -> list[list[Any]]:
    out = []
    for n in range(height + 1):
        try:
            out.append([n, block_summary(r.transport, chain, n)["id"], None])
        except ErrorReply as exc:
            out.append([n, f"error: {exc}", None])
    return out


def block_summary(transport: Transport, chain: str, height: int) -> dict[str, Any]:
    """A block's ID, time (ms) and tx IDs through the public API: X, P, or an EVM chain ("C" or a
    blockchain ID; its atomic txs too, from blockExtraData)."""
    if chain in ("X", "P"):
        method = "avm.getBlockByHeight" if chain == "X" else "platform.getBlockByHeight"
        block = transport.call(chain, method, {"height": str(height), "encoding": "json"}).get("block", {})
        bid = block.get("id")
        if bid is None:  # AvalancheGo's genesis blocks have no JSON ID
            from ..crypto.hashing import sha256
            from ..formats.cb58 import cb58_encode
            hexed = transport.call(chain, method, {"height": str(height), "encoding": "hex"})["block"]
            bid = cb58_encode(sha256(bytes.fromhex(hexed[2:])))
        txs = [t["id"] for t in block.get("txs") or []]
        if isinstance(block.get("tx"), dict):
            txs.append(block["tx"]["id"])
        return {"id": bid, "time": int(block.get("time", 0)) * 1000, "txs": txs}
    b = transport.call(f"/ext/bc/{chain}/rpc", "eth_getBlockByNumber", [hex(height), False])
    txs = list(b["transactions"])
    extra = b.get("blockExtraData")
    if extra and extra != "0x":
        from ..formats.ids import id_to_str
        from ..vms.evm.atomic_txs import decode_block_txs
        txs += [id_to_str(tx.id) for tx in decode_block_txs(bytes.fromhex(extra[2:]))]
    ms = b.get("timestampMilliseconds")
    return {"id": b["hash"], "time": int(ms, 16) if ms else int(b["timestamp"], 16) * 1000, "txs": txs,
            "state_root": b["stateRoot"]}


def record(r: TracedRunner) -> dict[str, Any]:
    heights = r.heights()
    chains: dict[str, Any] = {}
    for chain, h in heights.items():
        if chain in ("P", "X"):
            blocks = _snowman_blocks(r, chain, h)
        else:
            blocks = _evm_blocks(r, "C" if chain == "C" else r.l1_evms[chain].endpoint, h)
        chains[chain] = {"height": h, "blocks": blocks}
    balances: dict[str, dict[str, str]] = {}
    for name in sorted(r.accounts):
        if name == "ewoq" or name not in {a.name for a in r.scenario.accounts}:
            continue
        row: dict[str, str] = {}
        for chain in ("P", "X", "C"):
            if chain not in heights:
                continue
            if chain == "C":
                addr = r.accounts[name].eth_address_bytes
                row[chain] = str(int(r.transport.call("C", "eth_getBalance", ["0x" + addr.hex(), "latest"]), 16))
            else:
                row[chain] = str(r.xp.balance(chain, name, None))
        balances[name] = row
    return {
        "format": TRACE_FORMAT,
        "scenario": r.scenario.name or Path(r.scenario.source).stem,
        "time": {"start_ms": r.stats.start_ms, "end_ms": r.stats.end_ms},
        "chains": chains,
        "txs": [[t.step, t.chain, t.id] for t in r.txs],
        "balances": balances,
    }


def _name(chain: str) -> str:
    return f"{chain}-Chain" if chain in ("P", "X", "C") else f"chain {chain}"


def write(trace: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(trace, indent=1, sort_keys=False) + "\n")


def read(path: str | Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def compare(got: dict[str, Any], golden: dict[str, Any]) -> str | None:
    """None when equal, else a sentence naming the first divergence."""
    if golden.get("format") != got.get("format"):
        return f"trace format {got.get('format')} differs from the golden's {golden.get('format')}"
    for i, (a, b) in enumerate(zip(got["txs"], golden["txs"], strict=False)):
        if a != b:
            where = "" if a[:2] == b[:2] else f" (in this run sent by step {a[0]} on {a[1]})"
            return f"tx #{i + 1}, sent by step {b[0]} on the {b[1]}-Chain: {a[2]}, golden {b[2]}{where}"
    if len(got["txs"]) != len(golden["txs"]):
        return f"{len(got['txs'])} txs sent, golden {len(golden['txs'])}"
    l1s = sorted((set(got["chains"]) | set(golden["chains"])) - {"P", "X", "C"})
    for chain in ("P", "X", "C", *l1s):
        g, w = got["chains"].get(chain), golden["chains"].get(chain)
        if g is None and w is None:
            continue
        if g is None or w is None:
            return f"{_name(chain)}: {'missing in this run' if g is None else 'not in the golden trace'}"
        for a, b in zip(g["blocks"], w["blocks"], strict=False):
            if a != b:
                what = "ID" if a[1] != b[1] else "state root"
                got_v, want_v = (a[1], b[1]) if a[1] != b[1] else (a[2], b[2])
                return f"{_name(chain)} block {a[0]}: {what} {got_v}, golden {want_v}"
        if g["height"] != w["height"]:
            return f"{_name(chain)} height {g['height']}, golden {w['height']}"
    for name in sorted(set(got["balances"]) | set(golden["balances"])):
        a, b = got["balances"].get(name), golden["balances"].get(name)
        if a != b:
            return f"balances of {name}: {a}, golden {b}"
    if got.get("time") != golden.get("time"):
        return f"virtual time {got.get('time')}, golden {golden.get('time')}"
    return None
