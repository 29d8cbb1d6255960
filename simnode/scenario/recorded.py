"""Replaying a recorded session (`request` and `block` steps; see recorder.py and proxy.py).

On a node in this process with a virtual clock (`simnode replay`), the replay is exact: the node
builds no block on its own (`Node.block_building`), every request is sent at its recorded time
and every block is built at its recorded time, so the chains come out as recorded: same blocks,
timestamps, block IDs, tx IDs and state roots. A recorded ID that comes out different stops the
replay there, naming the step; for a proxy's recording (whose upstream may differ in consensus
fields) the block's txs must match and the IDs that differ are counted in the summary instead.

Anywhere else (a live target, a wall-clock devnet) requests are sent as they come and a block
step waits until its txs are accepted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .errors import StepError
from .golden_trace import block_summary
from .transport import ErrorReply, Transport

if TYPE_CHECKING:
    from .evm import EvmClient
    from .model import Scenario
    from .stats import RunStats

ACCEPT_WAIT_S = 30.0
PRIMARY = ("X", "P", "C")
# a recorded request that sends a tx: the chain its ID is on (for the trace), by method
TX_METHODS = {"eth_sendRawTransaction": None, "eth_sendTransaction": None, "avm.issueTx": "X",
              "wallet.issueTx": "X", "platform.issueTx": "P", "avax.issueTx": "C", "native.issueTx": "C"}


class RecordedRunner(Protocol):
    """What the recorded steps use of the runner (runner.Runner is one)."""

    transport: Transport
    scenario: Scenario
    stats: RunStats
    session: SessionReplay | None
    evm: EvmClient

    def evm_for(self, f: dict[str, Any]) -> EvmClient: ...

    def record_tx(self, chain: str, tx_id: str) -> None: ...

    def on_node(self, fn: Callable[[], Any]) -> Any: ...


class SessionReplay:
    """The state of one runner's recorded steps."""

    def __init__(self, r: RecordedRunner) -> None:
        self.r = r
        node = getattr(r.transport, "node", None)
        self.node = node
        self.exact = node is not None and node.clock.mode == "virtual"
        self.by_proxy = r.scenario.network.get("recorded_by") == "proxy"
        self.blocks = 0
        self.other_ids = 0
        self.last_at = 0  # the latest recorded time: where the session ended
        if self.exact:
            live = self.live_node
            r.on_node(lambda: setattr(live.block_building, "automatic", False))

    @property
    def live_node(self) -> Any:
        """The in-process node an exact replay drives (`exact` is only set when there is one)."""
        if self.node is None:
            raise StepError("an exact replay needs the node in the same process")
        return self.node

    def finish(self) -> None:
        """Give block building back to the chains; note the IDs a proxy's upstream gave otherwise."""
        if self.exact:
            node = self.live_node
            self.r.on_node(lambda: setattr(node.block_building, "automatic", True))
        if self.exact and self.last_at:
            self.r.stats.end_ms = self.last_at
        if self.by_proxy and self.other_ids:
            self.r.stats.notes.append(
                f"{self.other_ids} of {self.blocks} blocks have other IDs than upstream's (same txs; the block "
                "IDs differ where consensus fields differ: timestamps, fees, parents)")

    def set_time(self, at_ms: int) -> None:
        """Move the virtual clock to `at_ms` (never back: the node may be there already)."""
        node = self.live_node
        self.last_at = max(self.last_at, at_ms)

        def move() -> None:
            if at_ms > node.clock.now_ms():
                node.clock.set_ms(at_ms)
                node.wake_clock()
        self.r.on_node(move)


def _session(r: RecordedRunner) -> SessionReplay:
    if r.session is None:
        r.session = SessionReplay(r)
    return r.session


def endpoint_chain(path: str) -> str | None:
    """The chain a /ext/bc/<chain>/… path is on."""
    parts = path.strip("/").split("/")
    return parts[2] if len(parts) >= 3 and parts[:2] == ["ext", "bc"] else None


def act_request(r: RecordedRunner, f: dict[str, Any]) -> Any:
    s = _session(r)
    if s.exact and "at" in f:
        s.set_time(f["at"])
    method = f["method"]
    try:
        result = r.transport.call(f["endpoint"], method, f.get("params"))
    except ErrorReply as exc:
        raise StepError(f"{method} failed here, it succeeded in the recorded session: {exc}") from None
    finally:
        r.evm.reset()  # a raw request may send txs: cached nonces are no longer trusted
    if "result" in f and result != f["result"]:
        raise StepError(f"{method} answered {_short(result)}, the recorded session {_short(f['result'])}")
    if method in TX_METHODS:
        tx_id = result.get("txID") if isinstance(result, dict) else result
        r.record_tx(TX_METHODS[method] or endpoint_chain(f["endpoint"]) or "C", str(tx_id))
    return result


def act_block(r: RecordedRunner, f: dict[str, Any]) -> Any:
    s = _session(r)
    chain, height = f["chain"], f["height"]
    if chain not in PRIMARY:
        r.evm_for({"evm_chain": chain})  # in the trace, as the L1s an evm_chain step used
    if not s.exact:
        _wait_for_txs(r, chain, f.get("txs", []))
        return None
    if "at" in f:
        s.set_time(f["at"])
    s.blocks += 1
    have = _height(r, chain)
    if s.by_proxy:
        if not f.get("txs"):
            return None  # nothing the proxy saw: the block's txs (if any) came from elsewhere
        height = have + 1
    if have < height:
        _build(s, chain)
        have = _height(r, chain)
    if have < height:
        raise StepError(f"{_name(chain)} block {height}: nothing to build here (the chain is at {have}; "
                        "the recorded session had txs this replay did not send)")
    got = block_summary(r.transport, chain, height)
    if "txs" in f and sorted(got["txs"]) != sorted(f["txs"]):
        raise StepError(f"{_name(chain)} block {height} holds {_short(got['txs'])}, the recorded one "
                        f"{_short(f['txs'])}")
    if "id" in f and got["id"] != f["id"]:
        if not s.by_proxy:
            raise StepError(f"{_name(chain)} block {height}: ID {got['id']}, the recorded session's {f['id']}")
        s.other_ids += 1
    return got["id"]


def _build(s: SessionReplay, chain: str) -> None:
    node = s.live_node

    def build() -> None:
        c = node.chain_by_alias(chain)
        if c is None:
            raise StepError(f"{_name(chain)} is not running here")
        c.mine(1)
    s.r.on_node(build)


def _height(r: RecordedRunner, chain: str) -> int:
    if chain == "X":
        return int(r.transport.call("X", "avm.getHeight", {})["height"])
    if chain == "P":
        return int(r.transport.call("P", "platform.getHeight", {})["height"])
    return int(r.transport.call(f"/ext/bc/{chain}/rpc", "eth_blockNumber", []), 16)


def _wait_for_txs(r: RecordedRunner, chain: str, txs: list[str]) -> None:
    """On a live target: until every tx of the recorded block is accepted there."""
    deadline = time.monotonic() + ACCEPT_WAIT_S
    for tx in txs:
        while not _accepted(r, chain, tx):
            if time.monotonic() > deadline:
                raise StepError(f"{_name(chain)} tx {tx} not accepted within {ACCEPT_WAIT_S:.0f}s")
            time.sleep(0.02)


def _accepted(r: RecordedRunner, chain: str, tx: str) -> bool:
    if chain == "X" or chain == "P":
        method, done = ("avm.getTxStatus", "Accepted") if chain == "X" else ("platform.getTxStatus", "Committed")
        status = r.transport.call(chain, method, {"txID": tx}).get("status")
        if status in ("Dropped", "Rejected", "Aborted"):
            raise StepError(f"{_name(chain)} tx {tx} {status.lower()}")
        return status == done
    if not tx.startswith("0x"):  # a C-Chain atomic tx
        status = r.transport.call("C_avax", "avax.getAtomicTxStatus", {"txID": tx}).get("status")
        return status == "Accepted"
    return r.transport.call(f"/ext/bc/{chain}/rpc", "eth_getTransactionReceipt", [tx]) is not None


def _name(chain: str) -> str:
    return f"{chain}-Chain" if chain in PRIMARY else f"chain {chain}"


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 160 else text[:157] + "..."

