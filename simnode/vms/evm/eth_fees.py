"""The eth_ fee methods of an EVM chain's JSON-RPC: the suggested tip and gas price (coreth's
gas price oracle, EthAPI.suggested_tip), the blob base fee and coreth's fee history."""

from __future__ import annotations

import json
from typing import Any

from ...formats.jsonnum import json_kind
from ...rpc.jsonrpc import EthService, InvalidParams
from .block_rows import BlockInfo
from .rpcjson import hx, parse_quantity
from .service import EthAPI
from .vmerrors import ChainError

FEE_HISTORY_MAX_CALL_BLOCKS = 2048  # coreth gasprice.DefaultMaxCallBlockHistory
FEE_HISTORY_MAX_DEPTH = 25_000  # DefaultMaxBlockHistory: how far behind the last accepted block
FEE_HISTORY_MAX_PERCENTILES = 100


def register_eth_fees(svc: EthService, api: EthAPI) -> None:
    chain = api.chain
    reg = svc.register

    reg("eth_maxPriorityFeePerGas", lambda: hx(api.suggested_tip()))
    reg("eth_gasPrice", lambda: hx(api.suggested_tip() + chain.next_base_fee()))
    reg("eth_blobBaseFee", lambda: "0x1")

    def fee_history(count: Any, newest: Any, percentiles: Any = None) -> dict:
        """coreth's oracle (eth/gasprice/feehistory.go): one base fee per block (no next-block
        entry, unlike geth), at most 2048 blocks, none past the last accepted block."""
        blocks = _hex_or_decimal(count)
        pcts = _percentiles(percentiles)
        if blocks < 1:
            return {"oldestBlock": "0x0", "gasUsedRatio": None}
        if len(pcts) > FEE_HISTORY_MAX_PERCENTILES:
            raise ChainError(f"invalid reward percentile: over the query limit {FEE_HISTORY_MAX_PERCENTILES}")
        blocks = min(blocks, FEE_HISTORY_MAX_CALL_BLOCKS)
        for i, p in enumerate(pcts):
            if p < 0 or p > 100:
                raise ChainError(f"invalid reward percentile: {p:f}")
            if i > 0 and p <= pcts[i - 1]:
                raise ChainError(f"invalid reward percentile: #{i - 1}:{pcts[i - 1]:f} >= #{i}:{p:f}")
        head = chain.head.number
        tag = newest.lower() if isinstance(newest, str) else newest
        if tag == "pending":  # no pending block: up to the latest, one block fewer
            tag, blocks = "latest", blocks - 1
            if blocks == 0:
                return {"oldestBlock": "0x0", "gasUsedRatio": None}
        if tag in ("latest", "accepted", "safe", "finalized"):
            last = head
        else:
            last = 0 if tag == "earliest" else parse_quantity(newest, 1)
            if head > FEE_HISTORY_MAX_DEPTH - 1 and head - (FEE_HISTORY_MAX_DEPTH - 1) > last:
                raise ChainError(f"request beyond historical limit: requested {last}, head {head}")
            if last > head:
                raise ChainError(f"request beyond head block: requested {last}, head {head}")
        blocks = min(blocks, last + 1, last + FEE_HISTORY_MAX_DEPTH - head)
        oldest = last + 1 - blocks
        base_fees, ratios, rewards = [], [], []
        for num in range(oldest, last + 1):
            b = chain.block(num)
            assert b is not None
            h = b.header
            base = h.base_fee_per_gas or 0
            base_fees.append(hx(base))
            ratios.append(h.gas_used / h.gas_limit)
            if pcts:
                rewards.append([hx(r) for r in _block_rewards(b, base, pcts)])
        out: dict[str, Any] = {"oldestBlock": hx(oldest)}
        if pcts:
            out["reward"] = rewards
        out["baseFeePerGas"] = base_fees
        out["gasUsedRatio"] = ratios
        return out
    reg("eth_feeHistory", fee_history, 2, 3)


def _percentiles(v: Any) -> list[float]:
    """rewardPercentiles, a []float64 argument: null or a list of JSON numbers."""
    if v is None:
        return []
    if not isinstance(v, list):
        raise InvalidParams(f"invalid argument 2: json: cannot unmarshal {json_kind(v)} into Go value of type "
                            "[]float64")
    for p in v:
        if isinstance(p, bool) or not isinstance(p, (int, float)):
            raise InvalidParams(f"invalid argument 2: json: cannot unmarshal {json_kind(p)} into Go value of type "
                                "float64")
    return v


def _hex_or_decimal(v: Any) -> int:
    """math.HexOrDecimal64: a JSON number, a 0x quantity or a decimal string."""
    if isinstance(v, str) and not v.lower().startswith("0x"):
        try:
            return int(v, 10)
        except ValueError:
            raise InvalidParams(f"invalid argument 0: invalid hex or decimal integer {json.dumps(v)}") from None
    return parse_quantity(v, 0)


def _block_rewards(block: BlockInfo, base_fee: int, percentiles: list[float]) -> list[int]:
    """slimBlock.processPercentiles: the tip at each gas-used percentile, txs sorted by tip."""
    if not block.receipts:
        return [0] * len(percentiles)
    txs = sorted(((rc.effective_gas_price - base_fee, rc.gas_used) for rc in block.receipts), key=lambda t: t[0])
    gas_used = block.header.gas_used
    out = []
    index, total = 0, txs[0][1]
    for p in percentiles:
        threshold = int(gas_used * p / 100)
        while total < threshold and index < len(txs) - 1:
            index += 1
            total += txs[index][1]
        out.append(txs[index][0])
    return out
