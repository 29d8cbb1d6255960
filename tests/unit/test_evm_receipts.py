"""receipts.py against py-evm's own receipts: the same RLP (legacy and typed) and bloom for any
status, cumulative gas and logs."""

from __future__ import annotations

from eth.rlp.logs import Log
from eth.vm.forks.london.receipts import LondonTypedReceipt
from eth.rlp.receipts import Receipt
from hypothesis import given
from hypothesis import strategies as st

from simnode.vms.evm.receipts import logs_bloom, receipt_rlp

logs = st.lists(st.tuples(st.binary(min_size=20, max_size=20),
                          st.lists(st.binary(min_size=32, max_size=32), max_size=4),
                          st.binary(max_size=300)), max_size=5)


@given(type_id=st.sampled_from([0, 1, 2]), success=st.booleans(), gas=st.integers(0, 2**64 - 1), entries=logs)
def test_receipt_rlp_and_bloom_are_pyevms(type_id, success, gas, entries):
    rows = [[address, topics, data] for address, topics, data in entries]
    receipt = Receipt(state_root=b"\x01" if success else b"", gas_used=gas,
                      logs=[Log(a, tuple(int.from_bytes(t, "big") for t in ts), d) for a, ts, d in entries])
    expected = receipt.encode() if type_id == 0 else LondonTypedReceipt(type_id, receipt).encode()
    assert logs_bloom(rows) == receipt.bloom
    assert receipt_rlp(type_id, success, gas, logs_bloom(rows), rows) == expected
