"""The `order` section: how both nodes list an address's UTXOs as they pile up block after block, and
two P-Chain tx types simnode never builds.

K1 receives one UTXO per block (X sends, P base txs, exports from X to P and C and from P to X);
after each, its UTXOs are read whole and page by page (limit 1, each node's next page from its own
`endIndex`), on X and P and from shared memory (`sourceChain`), with getBalance's `utxoIDs`; a page
is also asked from a cursor that is no longer in the list (a UTXO spent since). Then an AdvanceTimeTx
(type 19) and a TransformSubnetTx (type 24), well formed, go to both through platform.issueTx.
"""

from __future__ import annotations

from typing import Any

from simnode.codec import Writer
from simnode.formats.ids import id_from_str

from . import diff_reads as R
from .avalanchego import rpc
from .diff_fresh import js_missing, step
from .diff_txs import K1_C, K1_P, K1_X, Harness, with_checksum
from .differ import Call

AVAX = 10**9
LOCAL_NETWORK_ID = 12345
ADVANCE_TIME_TX, TRANSFORM_SUBNET_TX, SECP_INPUT = 19, 24, 10


def _pages(h: Harness, path: str, method: str, params: dict[str, Any], label: str) -> None:
    """The whole list, then page by page (limit 1), each node paged on by its own endIndex: a cursor
    inside one tx's outputs means a different place on each (the real node lists them in map order)."""
    h.differ.compare(Call(path, R.req(method, params), label=f"{label} all"))
    starts: list[dict[str, Any] | None] = [None, None]
    for i in range(12):
        real_page, sim_page = (dict(params, limit=1, **({"startIndex": s} if s else {})) for s in starts)
        replies = h.differ.compare(Call(path, R.req(method, real_page), label=f"{label} page {i}",
                                        sim_body=R.req(method, sim_page)))
        results = [(reply or {}).get("result") or {} for reply in replies]
        if any(result.get("numFetched", "0") == "0" for result in results):
            return
        starts = [result["endIndex"] for result in results]


def _reads(h: Harness) -> None:
    _pages(h, R.X, "avm.getUTXOs", {"addresses": [K1_X]}, "order X K1")
    _pages(h, R.X, "avm.getUTXOs", {"addresses": [R.EWOQ_X, K1_X]}, "order X ewoq+K1")
    _pages(h, R.P, "platform.getUTXOs", {"addresses": [K1_P]}, "order P K1")
    _pages(h, R.P, "platform.getUTXOs", {"addresses": [R.EWOQ_P, K1_P]}, "order P ewoq+K1")
    _pages(h, R.P, "platform.getUTXOs", {"addresses": [K1_P], "sourceChain": "X"}, "order P from X")
    _pages(h, R.X, "avm.getUTXOs", {"addresses": [K1_X], "sourceChain": "P"}, "order X from P")
    _pages(h, R.AVAX, "avax.getUTXOs", {"addresses": [K1_C], "sourceChain": "X"}, "order C from X")
    h.compare_all([R.call(R.X, "avm.getBalance", {"address": K1_X, "assetID": "AVAX"}),
                   R.call(R.P, "platform.getBalance", {"addresses": [K1_P]})])


def _spent_cursor(h: Harness, spent_x: str, spent_p: str) -> None:
    """A page from a cursor that was ewoq's UTXO and is spent now: AvalancheGo starts at the head."""
    h.compare_all([
        R.call(R.X, "avm.getUTXOs", {"addresses": [R.EWOQ_X, K1_X], "limit": 2,
                                     "startIndex": {"address": R.EWOQ_X, "utxo": spent_x}}, "order X spent cursor"),
        R.call(R.P, "platform.getUTXOs", {"addresses": [R.EWOQ_P, K1_P], "limit": 2,
                                          "startIndex": {"address": R.EWOQ_P, "utxo": spent_p}},
               "order P spent cursor"),
    ])


def _first_utxo(h: Harness, path: str, method: str, address: str) -> str:
    real, _ = h.differ.compare(Call(path, R.req(method, {"addresses": [address], "limit": 1}),
                                    label=f"order first of {address[:1]}"))
    return str(((real or {}).get("result") or {}).get("endIndex", {}).get("utxo", ""))


def advance_time_tx(time: int) -> bytes:
    w = Writer()
    w.codec_version()
    w.u32(ADVANCE_TIME_TX)
    w.u64(time)
    w.u32(0)  # credentials
    return w.getvalue()


def transform_subnet_tx(subnet_id: bytes, asset_id: bytes) -> bytes:
    """A TransformSubnetTx as an Elastic Subnet tx was built before Etna: no inputs, the subnet's auth."""
    w = Writer()
    w.codec_version()
    w.u32(TRANSFORM_SUBNET_TX)
    w.u32(LOCAL_NETWORK_ID)
    w.raw(bytes(32))  # the P-Chain
    w.u32(0)  # outputs
    w.u32(0)  # inputs
    w.u32(0)  # memo
    w.raw(subnet_id)
    w.raw(asset_id)
    for v in (1000 * AVAX, 2000 * AVAX, 10_000, 100_000, AVAX, 10 * AVAX):
        w.u64(v)  # initial and maximum supply, consumption rates, validator stake bounds
    w.u32(86400)
    w.u32(365 * 86400)
    w.u32(20_000)
    w.u64(AVAX)
    w.u8(5)
    w.u32(800_000)
    w.u32(SECP_INPUT)
    w.u32(1)
    w.u32(0)  # signature index 0
    w.u32(0)  # credentials
    return w.getvalue()


def order(h: Harness) -> None:
    why = js_missing()
    if why:
        h.log.append(f"section order skipped: {why}")
        return
    _reads(h)
    first_x = _first_utxo(h, R.X, "avm.getUTXOs", R.EWOQ_X)
    first_p = _first_utxo(h, R.P, "platform.getUTXOs", R.EWOQ_P)
    for n in (1, 2, 3):
        step(h, "x-send", amount=n * AVAX)
        step(h, "p-base", amount=n * AVAX)
    for n in (1, 2):
        step(h, "x-export", to="P", amount=n * AVAX)
        step(h, "x-export", to="C", amount=n * AVAX)
        step(h, "p-export", to="X", amount=n * AVAX)
    _reads(h)
    _spent_cursor(h, first_x, first_p)
    avax = rpc(h.differ.real_url + R.X, "avm.getAssetDescription", {"assetID": "AVAX"})["result"]["assetID"]
    # AvalancheGo refuses it post-Etna before it looks at the subnet: any ID does
    for label, raw in (("AdvanceTimeTx", advance_time_tx(1_700_000_000)),
                       ("TransformSubnetTx", transform_subnet_tx(bytes(range(32)), id_from_str(avax)))):
        h.differ.compare(Call(R.P, R.req("platform.issueTx", {"tx": with_checksum(raw.hex()), "encoding": "hex"}),
                              label=f"order P {label}"))
