"""`anvil_reset` and `hardhat_reset` on the C-Chain's RPC: start the whole node again (Node.reset).

* `{forking: {jsonRpcUrl, blockNumber?}}`: a fork of that network (an Avalanche node's base URL or
  its `/ext/bc/C/rpc`) at that C-Chain block (default: its last accepted), P-, X- and C-Chain;
  `jsonRpcUrl` may be left out to re-fork the current upstream at another block.
* no `forking`: `anvil_reset` goes back to the fork's first state (the genesis on a node that is
  not a fork), as Anvil does; `hardhat_reset` leaves the fork for the node's own genesis, as
  Hardhat does.
A fork that cannot be opened is refused (-32000, naming the URL) and nothing is dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import NodeError
from ..formats import FormatError
from ..formats.jsonnum import hex_or_decimal
from ..rpc.jsonrpc import InvalidParams, RPCError

if TYPE_CHECKING:
    from .node_services import NodeServices


def _block(value: Any) -> int | None:
    if value is None:
        return None
    try:
        return hex_or_decimal(value)
    except FormatError:
        pass
    raise InvalidParams(f"invalid argument 0: forking.blockNumber must be a block number, got {value!r}")


def _forking(arg: Any) -> dict | None:
    if arg is None:
        return None
    if not isinstance(arg, dict):
        raise InvalidParams("invalid argument 0: expected an object {forking: {jsonRpcUrl, blockNumber}}")
    forking = arg.get("forking")
    if forking is not None and not isinstance(forking, dict):
        raise InvalidParams("invalid argument 0: forking must be an object {jsonRpcUrl, blockNumber}")
    return forking


def register(svc: Any, node: NodeServices) -> None:
    def reset(url: str | None, block: int | None) -> None:
        try:
            node.reset(url, block)
        except NodeError as exc:
            raise RPCError(str(exc)) from None

    def refork(forking: dict) -> None:
        url = forking.get("jsonRpcUrl") or forking.get("url") or node.config.fork_url
        if not url:
            raise InvalidParams("invalid argument 0: forking.jsonRpcUrl is required on a node that is not a fork")
        reset(str(url), _block(forking.get("blockNumber")))

    def anvil_reset(arg: Any = None) -> None:
        forking = _forking(arg)
        if forking:
            refork(forking)
        else:
            reset(node.config.fork_url, None if node.fork is None else node.fork.identity.block_number)

    def hardhat_reset(arg: Any = None) -> bool:
        forking = _forking(arg)
        if forking:
            refork(forking)
        else:
            reset(None, None)
        return True

    svc.register("anvil_reset", anvil_reset, 0, 1)
    svc.register("hardhat_reset", hardhat_reset, 0, 1)
