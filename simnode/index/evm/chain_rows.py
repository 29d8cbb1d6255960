"""What the EVM index reads from the chain's own rows instead of holding a copy.

The chain stores every block whole (vms/evm/block_rows.py: `b/<num>` the block row, `h/<block
hash>` -> num, `t/<tx hash>` -> num idx). The index's tx rows hold no record (the tx is the block
row's), its block rows only what no block row holds (fees spent, cumulative txs), and hash
lookups are the chain's: `rp` tells where the chain's rows are (its key prefix) and which header
layout they hold. A data dir indexed before this kept whole TX and BLOCK records and its own
th/bh hash rows: those records read as they are (query.py tells them by shape), and
hash lookups go to the chain's rows, which every layout has.
"""

from __future__ import annotations

from collections import OrderedDict

import msgpack

from ...crypto.hashing import keccak256
from ...store import unpack
from ...vms.evm.headers import Header, decoded_header
from ...vms.evm.receipts import ReceiptRow
from ..keys import big, num, parts, u64
from ..page import Readable
from .layout import Space
from .rows import decode_tx

_KEPT = 64  # decoded block rows one reader keeps (a page of txs reads a few blocks, often one)


class ChainRows:
    """One chain's block rows, read for the index (`db`: the node's Store or a batch)."""

    def __init__(self, db: Readable, sp: Space) -> None:
        self.db = db
        self.sp = sp
        self._where: tuple[bytes, bool] | None = None
        self._blocks: OrderedDict[int, tuple[Header, bytes, dict]] = OrderedDict()

    def _rows(self) -> tuple[bytes, bool] | None:
        if self._where is None:
            raw = self.db.get(self.sp.rp)
            if raw is None:
                return None
            prefix, coreth = unpack(raw)
            self._where = (prefix, coreth)
        return self._where

    def block(self, number: int) -> tuple[Header, bytes, dict]:
        """(header, block hash, stored row) of block `number`."""
        hit = self._blocks.get(number)
        if hit is not None:
            return hit
        where = self._rows()
        assert where is not None, "an index row of the new layout without its chain's rows"
        raw = self.db.get(where[0] + b"b/" + u64(number))
        assert raw is not None, "an index row of a block the chain does not hold"
        row = msgpack.unpackb(raw, raw=False)
        hit = (decoded_header(row["hdr"], where[1]), keccak256(row["hdr"]), row)
        self._blocks[number] = hit
        if len(self._blocks) > _KEPT:
            self._blocks.popitem(last=False)
        return hit

    def tx_position(self, tx_hash: bytes) -> bytes | None:
        """num u64 | idx u32 of the chain's tx `tx_hash` (None: not a tx of the chain, or the
        chain has no rows recorded: an index of the old layout, which has th rows)."""
        where = self._rows()
        if where is None:
            return self.db.get(self.sp.th + tx_hash)
        return self.db.get(where[0] + b"t/" + tx_hash)

    def block_number(self, block_hash: bytes) -> bytes | None:
        """u64 number of the chain's block `block_hash` (None as for tx_position)."""
        where = self._rows()
        if where is None:
            return self.db.get(self.sp.bh + block_hash)
        return self.db.get(where[0] + b"h/" + block_hash)

    def tx_record(self, pos: bytes) -> list:
        """The TX record (layout.py) of the tx at `pos`, from its block row."""
        n, i = parts(pos, 8, 4)
        _, block_hash, row = self.block(num(n))
        idx = num(i)
        raw = row["txs"][idx]
        type_id, nonce, gas, to, value, data, max_fee, tip = decode_tx(raw)
        status, _, used, price, contract, _ = ReceiptRow.decode(row["rc"][idx])
        return [keccak256(raw), block_hash, row["ms"], row["from"][idx], to, contract or b"", big(value), nonce, gas,
                used, price, status, type_id, max_fee, tip, data]

    def block_record(self, number: int, fees: bytes, cumulative: int) -> list:
        """The BLOCK record (layout.py) of block `number`: its header's fields and the two
        figures the index keeps."""
        header, block_hash, row = self.block(number)
        return [block_hash, header.parent_hash, row["ms"], len(row["txs"]), header.gas_used, header.gas_limit,
                header.base_fee_per_gas or 0, header.block_gas_cost or 0, header.min_delay_excess, fees, cumulative]
