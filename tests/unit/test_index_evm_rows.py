"""EVM index rows from hand-made block rows: tx and log decoding, frame outcomes, balance
history, token metadata read once, the driver's catch-up, and the query side's pages."""

from __future__ import annotations

from dataclasses import dataclass, field

import msgpack
import pytest
from eth_abi import encode
from eth_account import Account
from eth_utils import to_checksum_address
from hypothesis import given
from hypothesis import strategies as st

from simnode.formats.ids import EVM_VM_ID
from simnode.index import Indexer
from simnode.index.evm import layout
from simnode.index.evm.query import EvmIndex, address_chains, all_blocks, all_transactions
from simnode.index.evm.rows import (TRANSFER_BATCH_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_TOPIC, decode_tx,
                                    log_transfers)
from simnode.index.evm.tokens import DECIMALS, NAME, SUPPORTS_INTERFACE, SYMBOL, TOKEN_URI, TOTAL_SUPPLY
from simnode.index.keys import u32, u64
from simnode.index.page import CursorError
from simnode.crypto.hashing import keccak256
from simnode.store import Store, pack, unpack
from simnode.vms.evm.headers import Header, HeaderRules

KEY = Account.from_key(b"\x01" * 32)
A, B, C = b"\xaa" * 20, b"\xbb" * 20, b"\xcc" * 20
TOKEN, NFT = b"\x70" * 20, b"\x72" * 20
CID = b"\x11" * 32


def topic(addr: bytes) -> bytes:
    return addr.rjust(32, b"\x00")


def word(n: int) -> bytes:
    return n.to_bytes(32, "big")


def header(number: int, gas_used: int = 0, base_fee: int = 25) -> bytes:
    """A subnet-EVM header (the fake chain's layout) with a base fee and a block gas cost."""
    return Header(b"\x00" * 32, b"\x00" * 32, b"\x00" * 20, b"\x00" * 32, b"\x00" * 32, b"\x00" * 32, 0, 1, number,
                  8_000_000, gas_used, 1000 + number, b"", b"\x00" * 32, b"\x00" * 8, None, base_fee_per_gas=base_fee,
                  block_gas_cost=number).encode()


def signed(nonce: int, to: bytes = B, value: int = 1, data: bytes = b"", type_id: int = 2) -> bytes:
    tx = {"nonce": nonce, "value": value, "gas": 100_000, "data": data, "chainId": 43112}
    if to:
        tx["to"] = to_checksum_address(to)
    if type_id == 2:
        tx.update(maxFeePerGas=50, maxPriorityFeePerGas=2)
    else:
        tx["gasPrice"] = 30
        if type_id == 1:
            tx["accessList"] = [{"address": to_checksum_address(C), "storageKeys": ["0x" + "00" * 32]}]
    return bytes(KEY.sign_transaction(tx).raw_transaction)


@dataclass
class FakeChain:
    """What the driver and the rows read from a chain, with scripted static-call answers."""

    store: Store = field(default_factory=Store.memory)
    chain_id: bytes = CID
    prefix: bytes = b"F/"
    vm_id: bytes = EVM_VM_ID
    header_rules: HeaderRules = HeaderRules(coreth=False, base_fee=0, block_gas_cost=0, durango=0, etna=0, granite=0)
    name: str = "fake"
    rows: list[dict] = field(default_factory=list)
    answers: dict[tuple[bytes, bytes], bytes] = field(default_factory=dict)
    calls: list[tuple[bytes, bytes]] = field(default_factory=list)

    def static_call(self, row: dict, to: bytes, data: bytes) -> bytes | None:
        self.calls.append((to, data))
        return self.answers.get((to, data))

    @property
    def head(self):
        return type("Head", (), {"number": len(self.rows) - 1})()

    def block_row(self, number: int) -> dict | None:
        return self.rows[number] if number < len(self.rows) else None

    def add(self, txs: list[tuple[bytes, bytes, list]], frames: list | None = None) -> dict:
        """A block of (raw tx, sender, receipt) after the previous one, stored as the chain stores
        it (the index reads its block row and hash lookups)."""
        number = len(self.rows)
        hdr = header(number, sum(r[2] for _, _, r in txs))
        row = {"hdr": hdr, "ms": 1_000_000 + 1000 * number, "fee": [], "txs": [t for t, _, _ in txs],
               "from": [s for _, s, _ in txs], "rc": [r for _, _, r in txs], "size": 0}
        if frames:
            row["ct"] = frames
        batch = self.store.batch()
        batch.put(self.prefix + b"b/" + number.to_bytes(8, "big"), msgpack.packb(row, use_bin_type=True))
        batch.put(self.prefix + b"h/" + keccak256(hdr), number.to_bytes(8, "big"))
        for i, (raw, _, _) in enumerate(txs):
            batch.put(self.prefix + b"t/" + keccak256(raw), number.to_bytes(8, "big") + i.to_bytes(4, "big"))
        batch.commit()
        row["h"] = keccak256(hdr)
        self.rows.append(row)
        return row


def receipt(logs: list | None = None, status: int = 1, used: int = 21000, contract: bytes | None = None) -> list:
    return [status, 0, used, 27, contract, logs or []]


def erc20_log(frm: bytes, to: bytes, amount: int, token: bytes = TOKEN) -> list:
    return [token, [TRANSFER_TOPIC, topic(frm), topic(to)], word(amount)]


def index_all(store: Store, chain: FakeChain) -> Indexer:
    indexer = Indexer(store)
    for row in chain.rows:
        batch = store.batch()
        indexer.block_accepted(chain, row, batch)
        batch.commit()
    return indexer


def test_decode_tx_of_every_type():
    for type_id in (0, 1, 2):
        raw = signed(7, C, 12345, b"\x12\x34\x56\x78\x9a", type_id)
        t, nonce, gas, to, value, data, max_fee, tip = decode_tx(raw)
        assert (t, nonce, gas, to, value, data) == (type_id, 7, 100_000, C, 12345, b"\x12\x34\x56\x78\x9a")
        assert (max_fee, tip) == ((50, 2) if type_id == 2 else (None, None))


def test_log_transfers_of_each_standard():
    assert log_transfers(*erc20_log(A, B, 5)[1:]) == [(layout.ERC20, A, B, 5, b"")]
    assert log_transfers([TRANSFER_TOPIC, topic(A), topic(B), word(9)], b"") == [(layout.ERC721, A, B, 1, word(9))]
    single = [TRANSFER_SINGLE_TOPIC, topic(C), topic(A), topic(B)]
    assert log_transfers(single, word(3) + word(40)) == [(layout.ERC1155, A, B, 40, word(3))]
    batch = [TRANSFER_BATCH_TOPIC, topic(C), topic(A), topic(B)]
    data = encode(["uint256[]", "uint256[]"], [[1, 2], [10, 20]])
    assert log_transfers(batch, data) == [(layout.ERC1155, A, B, 10, word(1)), (layout.ERC1155, A, B, 20, word(2))]


@given(st.lists(st.binary(min_size=32, max_size=32), max_size=5), st.binary(max_size=200))
def test_malformed_logs_state_no_transfer_or_a_well_formed_one(topics, data):
    for head in (TRANSFER_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_BATCH_TOPIC):
        for standard, frm, to, amount, token_id in log_transfers([head, *topics], data):
            assert len(frm) == len(to) == 20 and amount >= 0 and len(token_id) in (0, 32)
            assert standard in (layout.ERC20, layout.ERC721, layout.ERC1155)


def test_frame_kinds_match_the_recorder():
    from simnode.vms.evm.tracing.block_frames import KINDS
    assert KINDS == layout.FRAME_KINDS


def test_blocks_txs_and_erc20_balances_with_history():
    chain = FakeChain()
    store = chain.store
    chain.answers = {(TOKEN, NAME): encode(["string"], ["Tok"]), (TOKEN, SYMBOL): encode(["string"], ["TK"]),
                     (TOKEN, DECIMALS): word(6)}
    chain.add([])
    chain.add([(signed(0, TOKEN, 0, b"\xa9\x05\x9c\xbb"), A, receipt([erc20_log(bytes(20), A, 100)], used=50_000))])
    chain.add([(signed(1, B, 7), A, receipt()), (signed(2, TOKEN, 0, b"\xa9\x05\x9c\xbb"), A,
                                                  receipt([erc20_log(A, B, 30), erc20_log(A, C, 70)]))])
    chain.add([(signed(3, TOKEN, 0, b"\x00"), A, receipt(status=0))])
    index_all(store, chain)
    ix = EvmIndex(store, CID)
    assert ix.head() == 3
    blocks = ix.blocks(10).items
    assert [b.number for b in blocks] == [3, 2, 1, 0]
    assert [b.cumulative_txs for b in blocks] == [4, 3, 1, 0]
    assert blocks[1].tx_count == 2 and blocks[1].fees_spent == 2 * 21000 * 27
    assert (blocks[1].base_fee, blocks[1].gas_cost, blocks[1].min_delay_excess) == (25, 2, None)
    assert ix.block_by_hash(chain.rows[2]["h"]).number == 2
    assert blocks[1].hash == chain.rows[2]["h"] and blocks[1].parent_hash == bytes(32)
    # token metadata was read once, with the standard from the log's shape
    assert chain.calls.count((TOKEN, NAME)) == 1
    token = ix.token(TOKEN)
    assert (token.standard, token.name, token.symbol, token.decimals, token.first_block) == ("ERC-20", "Tok", "TK",
                                                                                             6, 1)
    # balances now and after each block; A's went to zero and left the current table
    assert ix.erc20_balance(A, TOKEN) == 0 and ix.erc20_balances(A, 10).items == ()
    assert [ix.erc20_balance(A, TOKEN, n) for n in range(4)] == [0, 100, 0, 0]
    assert ix.erc20_balances(A, 10, block=1).items[0].balance == 100
    assert ix.erc20_balance(C, TOKEN) == 70 and ix.erc20_balance(B, TOKEN, 1) == 0
    assert [b.token for b in ix.erc20_balances(B, 10, tokens=[TOKEN, NFT]).items] == [TOKEN]
    # txs, status filter, transfers by address and by token
    assert [(t.block_number, t.index) for t in ix.transactions(10).items] == [(3, 0), (2, 1), (2, 0), (1, 0)]
    assert [t.status for t in ix.transactions(10, status=0).items] == [0]
    assert [t.log_index for t in ix.erc20_transfers(A, 10).items] == [1, 0, 0]
    assert [t.to for t in ix.token_transfers(TOKEN, 10, reverse=False).items] == [A, B, C]
    assert [t.hash for t in ix.native_transactions(B, 10).items] == [ix.transactions(10).items[2].hash]
    own = ix.address_transactions(B, 10).items
    assert [len(x.transfers) for x in own] == [1, 0]  # only the transfer B is part of
    assert [a for a in address_chains(store, C)] == [CID]
    # an address's txs are its na rows and its ta rows (only where it is no end of the tx itself)
    sp = layout.space(CID)
    assert [k[len(sp.ta):] for k, _ in store.iterate(sp.ta)] == [bytes(20) + u64(1) + u32(0), B + u64(2) + u32(1),
                                                                 C + u64(2) + u32(1)]  # the mint's zero address
    assert [(t.tx.block_number, t.tx.index) for t in ix.address_transactions(A, 10).items] == [
        (3, 0), (2, 1), (2, 0), (1, 0)]
    answers = [ix.address_transactions(a, n).items for a in (A, B, C, TOKEN) for n in (1, 10)]
    # as the layout before issue 27 wrote them: ta held the na rows too; the answers are the same
    batch = store.batch()
    for k, _ in list(store.iterate(sp.na)):
        batch.put(sp.ta + k[len(sp.na):], b"")
    batch.commit()
    assert [ix.address_transactions(a, n).items for a in (A, B, C, TOKEN) for n in (1, 10)] == answers
    assert [b.number for b in all_blocks(store, 2).items] == [3, 2]
    assert len(all_transactions(store, 10, status=1).items) == 3
    with pytest.raises(CursorError):
        ix.transactions(10, cursor=b"\x00")


def test_nfts_frames_creations_and_catch_up():
    chain = FakeChain()
    store = chain.store
    made = b"\x5e" * 20
    chain.answers = {(NFT, SUPPORTS_INTERFACE + bytes.fromhex("80ac58cd").ljust(32, b"\x00")): word(1),
                     (NFT, NAME): encode(["string"], ["Cats"]), (NFT, SYMBOL): encode(["string"], ["CAT"]),
                     (NFT, TOKEN_URI + word(5)): encode(["string"], ["data:,five"]),
                     (made, DECIMALS): word(18), (made, TOTAL_SUPPLY): word(1)}
    mint = [NFT, [TRANSFER_TOPIC, topic(bytes(20)), topic(A), word(5)], b""]
    move = [NFT, [TRANSFER_TOPIC, topic(A), topic(B), word(5)], b""]
    chain.add([])
    # a top-level creation; the contract is probed (ERC-165) and minted in the same block
    chain.add([(signed(0, b"", 0, b"\x60"), A, receipt([mint], contract=NFT))])
    # frames: a call moving value, a create that took effect, one undone by the failed frame above it
    frames = [[[0, A, C, b"", 90_000, 80_000, 0, False], [0, C, B, b"\x05", 5000, 100, 1, False],
               [4, C, made, b"", 40_000, 30_000, 1, False], [0, C, C, b"", 9000, 9000, 1, True],
               [5, C, b"\x99" * 20, b"", 8000, 100, 2, False]]]
    chain.add([(signed(1, C, 0, b"\x01\x02\x03\x04"), A, receipt([move], used=80_000))], frames)
    indexer = Indexer(store)
    indexer.chain_opened(chain)  # catch-up from nothing: every block
    ix = EvmIndex(store, CID)
    assert ix.head() == 2
    nft = ix.nft(NFT, 5)
    assert (nft.uri, nft.owner, nft.standard, nft.meta.name) == ("data:,five", B, "ERC-721", "Cats")
    assert [(h.token, h.token_id) for h in ix.erc721_holdings(B, 10).items] == [(NFT, 5)]
    assert ix.erc721_holdings(A, 10).items == ()
    assert [t.standard for t in ix.erc721_transfers(A, 10).items] == ["ERC-721", "ERC-721"]
    assert ix.contract(NFT).internal is False and ix.contract(NFT).token.standard == "ERC-721"
    # internal creation that took effect (and probed as ERC-20), not the undone CREATE2
    created = ix.contract(made)
    assert (created.creator, created.deployer, created.kind, created.internal) == (C, A, "CREATE", True)
    assert created.token.standard == "ERC-20" and ix.contract(b"\x99" * 20) is None
    assert [c.address for c in ix.deployments(A, 10).items] == [made, NFT]
    assert [c.address for c in ix.deployments(C, 10).items] == [made]
    details = ix.tx_details(ix.transactions(1).items[0].hash)
    assert [(f.kind, f.depth, f.reverted) for f in details.frames] == [
        ("CALL", 0, False), ("CALL", 1, False), ("CREATE", 1, False), ("CALL", 1, True), ("CREATE2", 2, True)]
    assert [(f.kind, f.value) for f in ix.internal_transactions(B, 10).items] == [("CALL", 5)]
    assert [f.kind for f in ix.internal_transactions(C, 10).items] == ["CREATE2", "CREATE", "CALL"]
    assert [len(x.internals) for x in ix.address_transactions(B, 10).items] == [1]
    assert indexer.chain_opened(chain) == 0  # nothing left to catch up
    chain.add([])
    assert indexer.chain_opened(chain) == 1 and ix.head() == 3


def test_erc1155_balances_and_collectibles():
    chain = FakeChain()
    store = chain.store
    multi = b"\x73" * 20
    single = [multi, [TRANSFER_SINGLE_TOPIC, topic(A), topic(bytes(20)), topic(A)], word(1) + word(50)]
    batch = [multi, [TRANSFER_BATCH_TOPIC, topic(A), topic(A), topic(B)],
             encode(["uint256[]", "uint256[]"], [[1, 2], [20, 0]])]
    mint721 = [NFT, [TRANSFER_TOPIC, topic(bytes(20)), topic(B), word(9)], b""]
    chain.add([])
    chain.add([(signed(0, multi, 0, b"\x01"), A, receipt([single]))])
    chain.add([(signed(1, multi, 0, b"\x02"), A, receipt([batch, mint721]))])
    index_all(store, chain)
    ix = EvmIndex(store, CID)
    assert ix.erc1155_balance(A, multi, 1) == 30 and ix.erc1155_balance(A, multi, 1, block=1) == 50
    assert [(b.token_id, b.balance) for b in ix.erc1155_balances(B, 10).items] == [(1, 20)]
    assert ix.erc1155_balances(B, 10, block=1).items == ()
    assert [(b.token, b.token_id) for b in ix.collectibles(B, 10).items] == [(NFT, 9), (multi, 1)]
    first_page = ix.collectibles(B, 1)
    assert first_page.next is not None
    assert [b.token for b in ix.collectibles(B, 1, first_page.next).items] == [multi]
    assert [t.amount for t in ix.erc1155_transfers(B, 10).items] == [0, 20]


def test_new_layout_rows_point_at_the_block_rows_and_old_records_read_the_same():
    """tx rows hold nothing, bk rows only fees and cumulative txs, no th/bh copies, rp says where
    the chain's rows are; an index of the old layout (whole records, th/bh, no rp) answers the same."""
    chain = FakeChain()
    store = chain.store
    chain.add([])
    chain.add([(signed(0, B, 5), A, receipt()), (signed(1, b"", 0, b"\x60"), A, receipt(contract=C, status=0))])
    index_all(store, chain)
    ix = EvmIndex(store, CID)
    sp = layout.space(CID)
    pos = (1).to_bytes(8, "big") + (1).to_bytes(4, "big")
    assert store.get(sp.tx + pos) == b""
    assert len(unpack(store.get(sp.bk + (1).to_bytes(8, "big")))) == 2
    assert list(store.iterate(sp.th)) == [] and list(store.iterate(sp.bh)) == []
    assert unpack(store.get(sp.rp)) == [b"F/", False]
    new = (ix.blocks(10).items, ix.transactions(10).items, ix.tx_details(keccak256(chain.rows[1]["txs"][1])),
           ix.block_by_hash(chain.rows[1]["h"]))
    assert new[1][0].contract == C and new[1][0].to == b"" and new[1][1].value == 5
    later = chain.add([(signed(2, B, 1), A, receipt())])  # the chain's rows, not indexed (yet)
    assert ix.tx(keccak256(later["txs"][0])) is None and ix.block_by_hash(later["h"]) is None
    chain.rows.pop()
    # the same index as the old layout wrote it
    batch = store.batch()
    for n, row in enumerate(chain.rows):
        fees, cumulative = unpack(store.get(sp.bk + n.to_bytes(8, "big")))
        batch.put(sp.bk + n.to_bytes(8, "big"), pack(ix.rows.block_record(n, fees, cumulative)))
        batch.put(sp.bh + row["h"], n.to_bytes(8, "big"))
        for i, raw in enumerate(row["txs"]):
            at = n.to_bytes(8, "big") + i.to_bytes(4, "big")
            batch.put(sp.tx + at, pack(ix.rows.tx_record(at)))
            batch.put(sp.th + keccak256(raw), at)
    batch.delete(sp.rp)
    batch.commit()
    old = EvmIndex(store, CID)
    assert (old.blocks(10).items, old.transactions(10).items, old.tx_details(keccak256(chain.rows[1]["txs"][1])),
            old.block_by_hash(chain.rows[1]["h"])) == new
    assert old.tx(b"\x00" * 32) is None and old.block_by_hash(b"\x00" * 32) is None
