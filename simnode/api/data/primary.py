"""What the primary-network routes share: which chain `{blockchainId}` names, address lists
checked against the network's HRP and the chain's letter, asset metadata, and the JSON shapes
several routes print (UTXOs, amounts).

Conventions of the hosted API kept here: UTXO owners print as bare bech32 (`local1…`), owners of
rewards, subnets and L1 balances with the P-Chain's letter (`P-local1…`); amounts are strings,
times unix seconds; memos and UTXO bytes are hex (`0x`, UTXO bytes with AvalancheGo's checksum).
Lists of addresses are comma-separated strings; the GET routes take at most MAX_ADDRESSES, the
POST (v2) routes MAX_ADDRESSES_V2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...formats.bech32 import bech32_decode, bech32_encode
from ...formats.errors import FormatError
from ...formats.hexenc import encode_bytes
from ...formats.ids import ZERO_ID, id_from_str, id_to_str, node_id_from_str, node_id_to_str
from ...index.primary import query
from ...index.primary.layout import STAKEABLE, Out
from .context import NO_INDEX_PRIMARY
from .errors import ApiError, bad_request, not_found
from .resolve import C_CHAIN, P_CHAIN, X_CHAIN

if TYPE_CHECKING:
    from ..node_services import NodeServices
    from .context import RequestContext

MAX_ADDRESSES = 64
MAX_ADDRESSES_V2 = 1024
LETTERS = {P_CHAIN: "P", X_CHAIN: "X", C_CHAIN: "C"}
NAMES = {P_CHAIN: "P-Chain", X_CHAIN: "X-Chain", C_CHAIN: "C-Chain"}
# The real P/X/C IDs by network name (the BlockchainIds enum a response may name them by).
REAL_IDS = {
    "mainnet": {X_CHAIN: "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
                C_CHAIN: "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5"},
    "fuji": {X_CHAIN: "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
             C_CHAIN: "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp"},
}
AVAX_META = ("Avalanche", "AVAX", 9)


def chain_id(node: NodeServices, name: str) -> bytes:
    g = node.genesis
    return {P_CHAIN: ZERO_ID, X_CHAIN: g.x_chain_id, C_CHAIN: g.c_chain_id}[name]


def chain_name(node: NodeServices, cid: bytes) -> str | None:
    for name in (P_CHAIN, X_CHAIN, C_CHAIN):
        if chain_id(node, name) == cid:
            return name
    return None


def chain_info(ctx: RequestContext, name: str) -> dict[str, str]:
    return {"chainName": name, "network": ctx.params["network"]}


def real_chain_id(network: str, name: str) -> str:
    """The ID of the BlockchainIds enum naming this node's `name` chain for `network`."""
    if name == P_CHAIN:
        return id_to_str(ZERO_ID)
    return REAL_IDS["mainnet" if network == "mainnet" else "fuji"][name]


def primary_chain(ctx: RequestContext, name: str) -> Any:
    """The node's P-, X- or C-Chain object; 503 while it is still loading."""
    chain = ctx.node.chains.get(chain_id(ctx.node, name))
    if chain is None or not chain.is_bootstrapped():
        raise ApiError(503, f"the {NAMES[name]} is not done bootstrapping")
    return chain


def index_on(ctx: RequestContext) -> None:
    ctx.indexed_store(NO_INDEX_PRIMARY)


# ------------------------------------------------------------------------------ addresses


def address(node: NodeServices, payload: bytes, letter: str | None = None) -> str:
    bech = bech32_encode(node.genesis.hrp, payload)
    return f"{letter}-{bech}" if letter else bech


def addresses_json(node: NodeServices, payloads: Any, letter: str | None = None) -> list[str]:
    return [address(node, a, letter) for a in payloads]


def split_list(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def parse_addresses(node: NodeServices, text: str | None, name: str | None, param: str = "addresses",
                    limit: int = MAX_ADDRESSES, evm: bool = False) -> list[bytes]:
    """20-byte addresses from a comma-separated list of `<hrp>1…` / `<letter>-<hrp>1…` addresses of
    the chain `name` (any primary chain's letter when None; `0x…` EVM addresses too where `evm`);
    a 400 naming the first bad one."""
    if text is None or not text.strip():
        raise bad_request(f"{param} should not be empty")
    hrp = node.genesis.hrp
    letter = LETTERS[name] if name else ""
    items = split_list(text)
    if len(items) > limit:
        raise bad_request(f"{param} must contain no more than {limit} addresses")
    out = []
    for item in items:
        if evm and item[:2].lower() == "0x":
            digits = item[2:]
            if len(digits) != 40 or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise bad_request(f"{param}: {item} is not an EVM address (0x and 40 hex digits)")
            out.append(bytes.fromhex(digits))
            continue
        given, sep, rest = item.rpartition("-")
        if sep and (given != letter if letter else given not in LETTERS.values()):
            expected = f"{letter}-{hrp}1… or {hrp}1…" if letter else f"P-, X- or C-{hrp}1…, or {hrp}1…"
            chain = f"a {NAMES[name]}" if name else "a primary network"
            raise bad_request(f"{param}: {item} is not {chain} address (expected {expected})")
        try:
            got_hrp, payload = bech32_decode(rest)
        except FormatError as exc:
            raise bad_request(f"{param}: {item} is not a bech32 address: {exc}") from None
        if got_hrp != hrp:
            raise bad_request(f'{param}: {item} has the human-readable part "{got_hrp}"; addresses of this network '
                              f'start with "{hrp}1" (optionally after a chain letter and "-")')
        if len(payload) != 20:
            raise bad_request(f"{param}: {item} does not hold a 20-byte address")
        out.append(payload)
    return out


def parse_node_ids(text: str | None, param: str = "nodeIds") -> list[bytes]:
    out = []
    for item in (t.strip() for t in (text or "").split(",")):
        if not item:
            continue
        try:
            out.append(node_id_from_str(item))
        except FormatError:
            raise bad_request(f"{param}: {item} is not a node ID (NodeID-<cb58>)") from None
    return out


def parse_id(text: str, what: str) -> bytes:
    try:
        return id_from_str(text)
    except FormatError:
        raise bad_request(f"{what} must be a cb58 ID: {text}") from None


def node(node_id: bytes) -> str:
    return node_id_to_str(node_id)


def ids(values: Any) -> list[str]:
    return [id_to_str(v) for v in values]


def hex0x(data: bytes) -> str:
    return "0x" + data.hex()


# ------------------------------------------------------------------------------ assets


@dataclass(slots=True)
class Assets:
    """Asset metadata by ID for one request (AVAX and the X-Chain's assets)."""

    node: NodeServices
    cache: dict[bytes, tuple[str, str, int, bool]] = field(default_factory=dict)

    def meta(self, asset_id: bytes) -> tuple[str, str, int, bool]:
        found = self.cache.get(asset_id)
        if found is None:
            row = query.asset(self.node.store, self.node.genesis.x_chain_id, asset_id)
            if row is not None:
                found = (row["name"], row["symbol"], row["den"], row["nft"])
            elif asset_id == self.node.genesis.avax_asset_id:
                found = (*AVAX_META, False)
            else:
                found = ("Unknown", "UNKNOWN", 0, False)
            self.cache[asset_id] = found
        return found

    def amount(self, asset_id: bytes, amount: int, **extra: Any) -> dict[str, Any]:
        name, symbol, den, nft = self.meta(asset_id)
        return {"assetId": id_to_str(asset_id), "name": name, "symbol": symbol, "denomination": den,
                "type": "nft" if nft else "secp256k1", "amount": str(amount), **extra}

    def totals(self, amounts: dict[bytes, int]) -> list[dict[str, Any]]:
        return [self.amount(a, v) for a, v in sorted(amounts.items()) if v]


def add(totals: dict[bytes, int], asset_id: bytes, amount: int) -> None:
    totals[asset_id] = totals.get(asset_id, 0) + amount


# ------------------------------------------------------------------------------ UTXO shapes


def is_staked(out: Out, now: int) -> bool:
    return out.stake is not None and now < out.stake[1]


def pchain_utxo(ctx: RequestContext, u: query.Utxo, assets: Assets, now: int) -> dict[str, Any]:
    out, spend = u.out, u.spend
    body: dict[str, Any] = {
        "addresses": addresses_json(ctx.node, out.addresses),
        "asset": assets.amount(out.asset, out.amount),
        "consumedOnChainId": id_to_str(spend.chain if spend else out.home),
        "createdOnChainId": id_to_str(out.created_on),
        "utxoId": id_to_str(out.uid),
        "utxoBytes": encode_bytes(out.raw, "hex"),
        "amount": str(out.amount),
        "assetId": id_to_str(out.asset),
        "blockNumber": str(out.height),
        "blockTimestamp": out.time,
        "platformLocktime": out.locktime,
        "outputIndex": out.index,
        "staked": is_staked(out, now),
        "threshold": out.threshold,
        "txHash": id_to_str(out.tx_id),
        "utxoType": "STAKE" if out.stake is not None else "TRANSFER",
    }
    if spend is not None:
        body.update({"consumingTxHash": id_to_str(spend.tx), "consumingBlockNumber": str(spend.height),
                     "consumingBlockTimestamp": spend.time})
    if out.kind == STAKEABLE:
        body["stakeableLocktime"] = out.stakeable
    if out.reward is not None:
        body["rewardType"] = out.reward
    if out.stake is not None:
        body["utxoStartTimestamp"], body["utxoEndTimestamp"] = out.stake
    return body


def xc_utxo(ctx: RequestContext, u: query.Utxo, assets: Assets) -> dict[str, Any]:
    out, spend = u.out, u.spend
    body: dict[str, Any] = {
        "addresses": addresses_json(ctx.node, out.addresses),
        "asset": assets.amount(out.asset, out.amount),
        "consumedOnChainId": id_to_str(spend.chain if spend else out.home),
        "createdOnChainId": id_to_str(out.created_on),
        "utxoId": id_to_str(out.uid),
        "utxoBytes": encode_bytes(out.raw, "hex"),
        "creationTxHash": id_to_str(out.tx_id),
        "locktime": out.locktime,
        "outputIndex": str(out.index),
        "threshold": out.threshold,
        "timestamp": out.time,
        "utxoType": out.kind,
    }
    if spend is not None:
        body.update({"consumingTxHash": id_to_str(spend.tx), "consumingTxTimestamp": spend.time})
    if out.group is not None:
        body["groupId"] = out.group
    if out.payload is not None:
        body["payload"] = hex0x(out.payload)
    return body


def utxo_json(ctx: RequestContext, name: str, u: query.Utxo, assets: Assets, now: int) -> dict[str, Any]:
    return pchain_utxo(ctx, u, assets, now) if name == P_CHAIN else xc_utxo(ctx, u, assets)


WRONG_TOKEN = "pageToken is not a page token of this list: start again from the first page (without a pageToken)"


def listing(ctx: RequestContext, fn: Callable[..., query.Page], *args: Any, **kwargs: Any) -> query.Page:
    """`fn(..., cursor=<the pageToken's cursor>)`; a cursor of another list's shape is a 400."""
    c = ctx.cursor
    if c is not None and not isinstance(c, bytes):
        raise bad_request(WRONG_TOKEN)
    try:
        return fn(*args, cursor=c, **kwargs)
    except query.CursorError:
        raise bad_request(WRONG_TOKEN) from None


def unknown(what: str) -> ApiError:
    return not_found(what)
