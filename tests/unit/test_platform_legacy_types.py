"""P tx types AvalancheGo's codec still registers though no block takes them any more: they parse
(AdvanceTimeTx 19, TransformSubnetTx 24) and their fee cannot be sized (fee.ErrUnsupportedTx); the
real node's refusal of both is in tests/vectors/avalanchego_answers/order.json.gz."""

from __future__ import annotations

import pytest

from simnode.testing.diff_order import advance_time_tx, transform_subnet_tx
from simnode.vms.platform import fees
from simnode.vms.platform import txs as t


def test_both_parse_and_encode_back_to_their_bytes():
    for raw, kind in ((advance_time_tx(1_700_000_000), t.AdvanceTimeTx),
                      (transform_subnet_tx(bytes(range(32)), b"\x01" * 32), t.TransformSubnetTx)):
        stx = t.parse_tx(raw)
        assert isinstance(stx.unsigned, kind)
        assert t.sign_tx(stx.unsigned, list(stx.credentials)).tx_bytes == raw


def test_their_fee_cannot_be_sized():
    for raw in (advance_time_tx(1), transform_subnet_tx(bytes(32), bytes(32))):
        with pytest.raises(fees.UnsupportedTx, match="^unsupported transaction type$"):
            fees.tx_gas(t.parse_tx(raw).unsigned)
