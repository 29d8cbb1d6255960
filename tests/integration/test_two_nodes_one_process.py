"""Two nodes in one process never mix: each builds blocks on its own thread at the same time as the
other, and each block's recorded call frames (the internal transactions the Data API serves) and
each debug_traceTransaction call tree hold that node's calls only."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator

import pytest
from eth_account import Account
from eth_utils import to_checksum_address

from simnode.testing import Simnode
from simnode.vms.evm.tracing import block_frames

EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
EWOQ_ADDR = bytes.fromhex(EWOQ.address[2:])
TXS = 12  # per node; each is a block of its own (automine)


def caller_code(targets: list[bytes]) -> bytes:
    """Runtime code that CALLs each target in turn (no value, no data) and stops."""
    one = b"".join(b"\x60\x00" for _ in range(5))  # retSize, retOffset, argsSize, argsOffset, value: 0
    return b"".join(one + b"\x73" + t + b"\x5a\xf1\x50" for t in targets) + b"\x00"  # PUSH20 t GAS CALL POP


def deploy_code(runtime: bytes) -> bytes:
    """Init code returning `runtime`: PUSH1 len DUP1 PUSH1 11 PUSH1 0 CODECOPY PUSH1 0 RETURN."""
    return bytes([0x60, len(runtime), 0x80, 0x60, 11, 0x60, 0, 0x39, 0x60, 0, 0xF3]) + runtime


def tx(nonce: int, to: bytes | None, data: bytes) -> str:
    fields = {"chainId": 43112, "nonce": nonce, "value": 0, "gas": 400_000, "maxFeePerGas": 300 * 10**9,
              "maxPriorityFeePerGas": 10**9, "type": 2, "data": data}
    if to is not None:
        fields["to"] = to_checksum_address(to)
    return "0x" + bytes(EWOQ.sign_transaction(fields).raw_transaction).hex()


def contract_address(nonce: int) -> bytes:
    import rlp
    from eth_utils import keccak

    return keccak(rlp.encode([EWOQ_ADDR, nonce]))[12:]


@pytest.fixture
def two_nodes() -> Iterator[tuple[Simnode, Simnode]]:
    a = Simnode.start(seed=1)
    try:
        b = Simnode.start(seed=2)
        try:
            yield a, b
        finally:
            b.stop()
    finally:
        a.stop()


def run_together(*jobs: Callable[[], object]) -> list[object]:
    """Run the jobs on threads of their own at once, switching between threads often."""
    results: list[object] = [None] * len(jobs)
    errors: list[BaseException] = []
    start = threading.Barrier(len(jobs))

    def run(i: int) -> None:
        try:
            start.wait()
            results[i] = jobs[i]()
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors
    return results


def test_two_nodes_building_blocks_on_two_threads_record_their_own_call_frames(two_nodes):
    a, b = two_nodes
    # node A's contract calls two addresses, node B's five others: a frame of one in a block of
    # the other, or one missing, shows
    targets = {a: [bytes([0xA0, i]) * 10 for i in range(2)], b: [bytes([0xB0, i]) * 10 for i in range(5)]}
    nonce0 = {n: int(n.rpc("C", "eth_getTransactionCount", [EWOQ.address, "latest"]), 16) for n in (a, b)}
    contract = {n: contract_address(nonce0[n]) for n in (a, b)}
    for n in (a, b):
        n.rpc("C", "eth_sendRawTransaction", [tx(nonce0[n], None, deploy_code(caller_code(targets[n])))])
        assert n.rpc("C", "eth_getCode", ["0x" + contract[n].hex(), "latest"]) == "0x" + caller_code(targets[n]).hex()
    raws = {n: [tx(nonce0[n] + 1 + i, contract[n], b"") for i in range(TXS)] for n in (a, b)}

    def send_all(n: Simnode) -> Callable[[], list[str]]:
        return lambda: [n.rpc("C", "eth_sendRawTransaction", [raw]) for raw in raws[n]]

    hashes = dict(zip((a, b), run_together(send_all(a), send_all(b)), strict=True))

    for n in (a, b):
        chain = n.node.chain_by_alias("C")
        expected = [[block_frames.K_CALL, EWOQ_ADDR, contract[n], 0, False]] + [
            [block_frames.K_CALL, contract[n], t, 1, False] for t in targets[n]]
        for h in hashes[n]:
            receipt = n.rpc("C", "eth_getTransactionReceipt", [h])
            assert receipt["status"] == "0x1"
            [frames] = chain.block_row(int(receipt["blockNumber"], 16))["ct"]
            assert [[f[0], f[1], f[2], f[6], f[7]] for f in frames] == expected

    def trace_all(n: Simnode) -> Callable[[], list[dict]]:
        return lambda: [n.rpc("C", "debug_traceTransaction", [h, {"tracer": "callTracer"}]) for h in hashes[n]]

    traces = dict(zip((a, b), run_together(trace_all(a), trace_all(b)), strict=True))
    for n in (a, b):
        for trace in traces[n]:
            assert trace["to"] == "0x" + contract[n].hex()
            assert [c["to"] for c in trace["calls"]] == ["0x" + t.hex() for t in targets[n]]
