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
from typing import TYPE_CHECKING, Any

from .transport import RPCError

if TYPE_CHECKING:
    from .runner import Runner

TRACE_FORMAT = 1


def _evm_blocks(r: Runner, endpoint: str, height: int) -> list[list[Any]]:
    out = []
    for n in range(height + 1):
        b = r.transport.call(endpoint, "eth_getBlockByNumber", [hex(n), False])
        out.append([n, b["hash"], b["stateRoot"]])
    return out


def _snowman_blocks(r: Runner, chain: str, height: int) -> list[list[Any]]:
    method = "avm.getBlockByHeight" if chain == "X" else "platform.getBlockByHeight"
    out = []
    for n in range(height + 1):
        try:
            res = r.transport.call(chain, method, {"height": str(n), "encoding": "json"})
        except RPCError as exc:
            out.append([n, f"error: {exc}", None])
            continue
        block = res.get("block", {})
        bid = block.get("id") if isinstance(block, dict) else None
        if bid is None:
            from ..crypto.hashing import sha256
            from ..formats.cb58 import cb58_encode
            hexed = r.transport.call(chain, method, {"height": str(n), "encoding": "hex"})["block"]
            bid = cb58_encode(sha256(bytes.fromhex(hexed[2:])))
        out.append([n, bid, None])
    return out


def record(r: Runner) -> dict[str, Any]:
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
