"""`/ext/simnode`: whole-node time travel and snapshots (gorilla envelope, `simnode.*`).

* `simnode.advanceTime {seconds}` / `simnode.setTime {timestamp}` move the node's one clock, so
  every chain sees the same time and every event due on the way fires in order.
* `simnode.snapshot {}` → `{id}`; `simnode.revert {id}` restores P, X and C together from the
  store's undo records. A revert consumes its snapshot and every snapshot taken after it.
* `simnode.mine {blocks?}` builds blocks now on every chain that has something to build (the
  C-Chain builds empty blocks too).
* `simnode.getTime {}` → the node's time.
* `simnode.fundAddress {address, amount}` credits an address as a dev state edit (no tx): an
  X- or P-Chain address (`X-…`/`P-…`) gets a new AVAX UTXO of `amount` nAVAX (vms/faucet.py), a
  C-Chain address (`0x…`) `amount` wei; on a fork, any upstream address.
* `simnode.setRelayer {enabled}` switches the in-process ICM relayer; `simnode.getRelayer {}` →
  `{enabled, address, pending}` (its account and the messages waiting for delivery).
* `simnode.getWebhooks`, `simnode.setWebhookDelivery`, `simnode.sendTestWebhookEvent`: the
  webhooks' deliveries for the explorer (webhooks_dev.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..clock import ClockError
from ..errors import NodeError
from ..formats.address import parse_address
from ..formats.errors import FormatError
from ..formats.ids import id_to_str
from ..formats.jsonnum import format_rfc3339, parse_uint
from ..rpc.jsonrpc import GorillaService, RPCError
from . import webhooks_dev

if TYPE_CHECKING:
    from .node_services import NodeServices

MAX_MINE = 100_000


def _uint(params: dict[str, Any], key: str, default: int | None = None) -> int:
    if params.get(key) is None:
        if default is None:
            raise RPCError(f"argument '{key}' not given")
        return default
    try:
        return parse_uint(params[key])
    except FormatError as exc:
        raise RPCError(f"invalid '{key}': {exc}") from exc


def _time(node: NodeServices) -> dict[str, Any]:
    ms = node.clock.now_ms()
    return {"timestamp": str(ms // 1000), "timestampMilliseconds": str(ms), "time": format_rfc3339(ms // 1000)}


def build_service(node: NodeServices) -> GorillaService:
    def get_time(_: dict[str, Any]) -> dict[str, Any]:
        return _time(node)

    def advance_time(params: dict[str, Any]) -> dict[str, Any]:
        node.clock.advance(_uint(params, "seconds"))
        node.wake_clock()
        return _time(node)

    def set_time(params: dict[str, Any]) -> dict[str, Any]:
        try:
            node.clock.set_ms(_uint(params, "timestamp") * 1000)
        except ClockError as exc:
            raise RPCError(str(exc)) from exc
        node.wake_clock()
        return _time(node)

    def snapshot(_: dict[str, Any]) -> dict[str, Any]:
        return {"id": str(node.snapshot())}

    def revert(params: dict[str, Any]) -> dict[str, Any]:
        try:
            node.revert(_uint(params, "id"))
        except NodeError as exc:
            raise RPCError(str(exc)) from exc
        return {"reverted": True}

    def mine(params: dict[str, Any]) -> dict[str, Any]:
        blocks = _uint(params, "blocks", 1)
        if blocks > MAX_MINE:
            raise RPCError(f"blocks must be at most {MAX_MINE}")
        built = {name: count for name, count in node.mine(blocks).items()}
        return {"blocks": {k: str(v) for k, v in built.items()}}

    def set_relayer(params: dict[str, Any]) -> dict[str, Any]:
        enabled = params.get("enabled")
        if not isinstance(enabled, bool):
            raise RPCError("enabled must be true or false")
        node.set_relayer(enabled)
        return get_relayer({})

    def get_relayer(_: dict[str, Any]) -> dict[str, Any]:
        relayer = node.relayer
        return {"enabled": node.relayer_on,
                "address": None if relayer is None else "0x" + relayer.address.hex(),
                "pending": [] if relayer is None else ["0x" + p.message_id.hex() for p in relayer.pending]}

    def fund_address(params: dict[str, Any]) -> dict[str, Any]:
        text = params.get("address")
        if not isinstance(text, str) or not text:
            raise RPCError("argument 'address' not given")
        amount = _uint(params, "amount")
        if amount == 0:
            raise RPCError("amount must be more than 0")
        if text[:2].lower() == "0x":
            chain = node.chain_by_alias("C")
            try:
                address = bytes.fromhex(text[2:])
            except ValueError:
                address = b""
            if len(address) != 20 or chain is None or not hasattr(chain, "edit_state"):
                raise RPCError(f"couldn't parse address {text!r}: not a C-Chain address")
            chain.edit_state(lambda st: st.set_balance(address, st.get_balance(address) + amount))
            return {"balance": str(chain.view().get_balance(address))}
        try:
            alias, hrp, address = parse_address(text)
        except FormatError as exc:
            raise RPCError(f"couldn't parse address {text!r}: {exc}") from exc
        chain = node.chain_by_alias(alias)
        if hrp != node.genesis.hrp or chain is None or not hasattr(chain, "fund"):
            raise RPCError(f"couldn't parse address {text!r}: not an X- or P-Chain address of network "
                           f"{node.genesis.hrp}")
        return {"txID": id_to_str(chain.fund(address, amount)), "outputIndex": 0}

    return GorillaService({"simnode": {
        "getTime": get_time, "advanceTime": advance_time, "setTime": set_time,
        "snapshot": snapshot, "revert": revert, "mine": mine,
        "setRelayer": set_relayer, "getRelayer": get_relayer, "fundAddress": fund_address,
        **webhooks_dev.methods(node),
    }})
