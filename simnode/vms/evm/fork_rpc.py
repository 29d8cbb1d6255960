"""A forked EVM chain's RPC for history up to the fork block: served as the upstream serves it.

Blocks up to the fork block N (by number, by hash, their txs, receipts, logs and traces) and
state at a block before N are the upstream's: the methods below answer them from the upstream (each answer
kept in the fork cache) and everything from N+1 on (and the state at N, which is the fork's lazy
state before its first block) from the chain itself, with eth_service.py's own handlers. eth_getLogs
and eth_feeHistory over a range that spans N join the two parts. A tx or block the upstream only
has after N is not part of the fork: it is answered as unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...fork.errors import ForkError
from ...rpc.jsonrpc import EthService, InvalidParams
from .rpcjson import hb, hx, parse_hash, parse_quantity

Handler = Callable[..., Any]
LATEST_TAGS = ("latest", "pending", "safe", "finalized", "accepted")
# state reads whose block tag is argument `index`: before the fork block they are the upstream's
STATE_METHODS = {"eth_getBalance": 1, "eth_getCode": 1, "eth_getTransactionCount": 1, "eth_getStorageAt": 2,
                 "eth_call": 1, "eth_estimateGas": 1, "eth_getProof": 2, "eth_createAccessList": 1}
BY_NUMBER = ("eth_getBlockTransactionCountByNumber", "eth_getTransactionByBlockNumberAndIndex",
             "eth_getBlockReceipts", "eth_getHeaderByNumber", "debug_traceBlockByNumber")
BY_HASH = ("eth_getBlockTransactionCountByHash", "eth_getTransactionByBlockHashAndIndex", "eth_getHeaderByHash",
           "debug_traceBlockByHash")
BY_TX_HASH = ("eth_getTransactionByHash", "eth_getTransactionReceipt", "eth_getRawTransactionByHash")


def register_fork(svc: EthService, api: Any) -> None:
    chain = api.chain
    cf = chain.fork
    fs = cf.state
    fork_block = cf.block_number

    def upstream(method: str, params: list[Any]) -> Any:
        return fs.call(method + orjson.dumps(params).decode(), method, params)

    def hash_number(h: bytes) -> int | None:
        """The number of the block with hash `h` in the fork's history (None: unknown)."""
        local = chain.block_by_hash(h)
        if local is not None:
            return local.number
        block = upstream("eth_getBlockByHash", [hb(h), False])
        if block is None:
            return None
        n = int(block["number"], 16)
        return n if n <= fork_block else None

    def tag_number(tag: Any, arg: int) -> int | None:
        """The block number a tag names, None where eth_service.py's own handler should answer (or refuse)."""
        if tag is None:
            return chain.head.number
        if isinstance(tag, dict):
            if tag.get("blockHash"):
                return hash_number(parse_hash(tag["blockHash"], arg))
            if "blockNumber" not in tag:
                return None
            tag = tag["blockNumber"]
        if isinstance(tag, str):
            t = tag.lower()
            if t in LATEST_TAGS:
                return chain.head.number
            if t == "earliest":
                return 0
            if len(t) == 66:
                return hash_number(parse_hash(tag, arg))
        try:
            return parse_quantity(tag, arg)
        except InvalidParams:
            return None

    # ------------------------------------------------------------------ blocks by number and hash

    def by_number(original: Handler) -> Handler:
        def handler(tag: Any, full: Any = False) -> Any:
            n = tag_number(tag, 0)
            if n is not None and n <= fork_block:
                return fs.block(n, bool(full))
            return original(tag, full)
        return handler
    svc.wrap("eth_getBlockByNumber", by_number)

    def by_hash(original: Handler) -> Handler:
        def handler(h: Any, full: Any = False) -> Any:
            local = chain.block_by_hash(parse_hash(h))
            if local is not None and local.number > fork_block:
                return original(h, full)
            block = upstream("eth_getBlockByHash", [h, bool(full)])
            return block if block is not None and int(block["number"], 16) <= fork_block else None
        return handler
    svc.wrap("eth_getBlockByHash", by_hash)

    def method_by_number(name: str) -> Callable[[Handler], Handler]:
        def wrapper(original: Handler) -> Handler:
            def handler(tag: Any, *rest: Any) -> Any:
                n = tag_number(tag, 0)
                if n is not None and n <= fork_block:
                    return upstream(name, [hx(n), *rest])
                return original(tag, *rest)
            return handler
        return wrapper

    def method_by_hash(name: str) -> Callable[[Handler], Handler]:
        def wrapper(original: Handler) -> Handler:
            def handler(h: Any, *rest: Any) -> Any:
                n = hash_number(parse_hash(h))
                if n is not None and n <= fork_block:
                    return upstream(name, [h, *rest])
                return original(h, *rest)
            return handler
        return wrapper

    for name in BY_NUMBER:
        if svc.has(name):
            svc.wrap(name, method_by_number(name))
    for name in BY_HASH:
        if svc.has(name):
            svc.wrap(name, method_by_hash(name))

    # ------------------------------------------------------------------ txs and receipts by hash

    def tx_lookup(name: str) -> Callable[[Handler], Handler]:
        def wrapper(original: Handler) -> Handler:
            def handler(h: Any) -> Any:
                local = original(h)
                if local is not None:
                    return local
                failed = cf.failed.get(parse_hash(h))
                if failed is not None:  # left out of its block: the upstream could not give what it read
                    raise ForkError(failed)
                answer = upstream(name, [h])
                if answer is None:
                    return None
                if name == "eth_getRawTransactionByHash":
                    tx = upstream("eth_getTransactionByHash", [h])
                    number = None if tx is None else tx.get("blockNumber")
                else:
                    number = answer.get("blockNumber")
                return answer if number is not None and int(number, 16) <= fork_block else None
            return handler
        return wrapper

    for name in BY_TX_HASH:
        svc.wrap(name, tx_lookup(name))

    def trace_tx(original: Handler) -> Handler:
        def handler(h: Any, *rest: Any) -> Any:
            if chain.tx_location(parse_hash(h)) is None:
                tx = upstream("eth_getTransactionByHash", [h])
                number = None if tx is None else tx.get("blockNumber")
                if number is not None and int(number, 16) <= fork_block:
                    return upstream("debug_traceTransaction", [h, *rest])
            return original(h, *rest)
        return handler
    if svc.has("debug_traceTransaction"):
        svc.wrap("debug_traceTransaction", trace_tx)

    # ------------------------------------------------------------------ state before the fork block

    def state_at(name: str, index: int) -> Callable[[Handler], Handler]:
        def wrapper(original: Handler) -> Handler:
            def handler(*args: Any) -> Any:
                if len(args) > index:
                    n = tag_number(args[index], index)
                    if n is not None and n < fork_block:
                        params = list(args)
                        params[index] = hx(n)
                        return upstream(name, params)
                return original(*args)
            return handler
        return wrapper

    for name, index in STATE_METHODS.items():
        if svc.has(name):
            svc.wrap(name, state_at(name, index))

    # ------------------------------------------------------------------ ranges across the fork block

    def logs(original: Handler) -> Handler:
        def handler(crit: Any) -> Any:
            if not isinstance(crit, dict):
                return original(crit)
            if crit.get("blockHash"):
                n = hash_number(parse_hash(crit["blockHash"]))
                if n is not None and n <= fork_block:
                    return upstream("eth_getLogs", [crit])
                return original(crit)
            head = chain.head.number
            start = tag_number(crit.get("fromBlock"), 0) if crit.get("fromBlock") is not None else head
            end = tag_number(crit.get("toBlock"), 0) if crit.get("toBlock") is not None else head
            if start is None or end is None or start > fork_block or start > end:
                return original(crit)
            early = upstream("eth_getLogs", [{**crit, "fromBlock": hx(start), "toBlock": hx(min(end, fork_block))}])
            if end <= fork_block:
                return early
            return early + original({**crit, "fromBlock": hx(fork_block + 1), "toBlock": hx(end)})
        return handler
    svc.wrap("eth_getLogs", logs)

    def fee_history(original: Handler) -> Handler:
        def handler(count: Any, newest: Any, percentiles: Any = None) -> Any:
            try:
                blocks = int(count, 16) if isinstance(count, str) and count.lower().startswith("0x") else int(count)
            except (TypeError, ValueError):
                return original(count, newest, percentiles)
            last = tag_number(newest, 1)
            if blocks < 1 or last is None or last > chain.head.number or last - blocks >= fork_block:
                return original(count, newest, percentiles)
            extra = [] if percentiles is None else [percentiles]
            if last <= fork_block:
                return upstream("eth_feeHistory", [hx(blocks), hx(last), *extra])
            # the blocks up to the fork block are the upstream's, the later ones the fork's
            later = original(hx(last - fork_block), newest, percentiles)
            early = upstream("eth_feeHistory", [hx(blocks - (last - fork_block)), hx(fork_block), *extra])
            out: dict[str, Any] = {"oldestBlock": early["oldestBlock"]}
            if "reward" in later:
                out["reward"] = (early.get("reward") or []) + later["reward"]
            out["baseFeePerGas"] = early["baseFeePerGas"] + later["baseFeePerGas"]
            out["gasUsedRatio"] = early["gasUsedRatio"] + later["gasUsedRatio"]
            return out
        return handler
    svc.wrap("eth_feeHistory", fee_history)
