"""ethers 6.17.0 (tests/js/ethers_matrix.mjs) against a node that mines at once and one that mines every
second (`--block-time 1`): one script run per node covers every check; each test here asserts one
check's values (see client_matrix.py): transfers (EIP-1559, legacy), explicit and pending nonces,
deploy/read/write, custom-error and require-string reverts decoded, logs and filters, websocket
subscriptions, eth_feeHistory, eth_getProof walked to the state root, EIP-712 through the node's
account, 20 rapid sends and concurrent sends from 10 accounts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import client_matrix as m
from .rpc import RPCFailure, call


@pytest.fixture(scope="module", params=list(m.MODES))
def run(request: pytest.FixtureRequest) -> Iterator[m.MatrixRun]:
    yield from m.matrix_run(request.param, "ethers_matrix.mjs", "ethers")


def test_deploy_read_write(run):
    m.check_deploy_read_write(run)


def test_eip1559_transfer(run):
    m.check_eip1559(run)


def test_legacy_transfer(run):
    m.check_legacy(run)


def test_explicit_nonce_with_a_gap(run):
    m.check_explicit_nonce(run)


def test_pending_nonce(run):
    m.check_pending_nonce(run)


def test_custom_error_decoded(run):
    v = run.value("customError")
    data = m.not_owner_data(v["stranger"], v["owner"])
    want = ["NotOwner", [v["stranger"], v["owner"]]]
    # a contract call: ethers decodes it itself
    assert v["staticCall"]["code"] == "CALL_EXCEPTION"
    assert [v["staticCall"]["name"], v["staticCall"]["args"]] == want
    # an estimate (and so a send): the node's revert data, decoded with the contract's interface
    for how in ("staticCall", "estimateGas", "send"):
        got = v[how]
        assert got["code"] == "CALL_EXCEPTION" and got["data"] == data, how
        assert [got["parsed"]["name"], got["parsed"]["args"]] == want, how


def test_require_string_decoded(run):
    v = run.value("requireString")
    for how in ("staticCall", "estimateGas"):
        got = v[how]
        assert got["code"] == "CALL_EXCEPTION" and got["reason"] == "value too large", how
        assert got["data"] == m.error_string_data("value too large"), how
        assert [got["parsed"]["name"], got["parsed"]["args"]] == ["Error", ["value too large"]], how


def test_mined_revert(run):
    v = m.check_mined_revert_receipt(run)
    assert v["waited"]["code"] == "CALL_EXCEPTION" and v["waited"]["receipt"]["status"] == 0
    # replayed at its block, the call gives the custom error the tx reverted with
    assert [v["replay"]["name"], v["replay"]["args"]] == ["NotOwner", [v["caller"], run.out["accounts"]["owner"]]]


def test_logs_and_filters(run):
    m.check_logs_and_filters(run)


def test_websocket_subscriptions(run):
    m.check_websocket(run)


def test_eip712_through_the_node_account(run):
    m.check_eip712(run)


def test_sign_typed_data_errors(run):
    """Anvil's answers for an account the node does not hold and for typed data naming no known type."""
    with pytest.raises(RPCFailure) as exc:
        call(run.rpc, "eth_signTypedData_v4", ["0x000000000000000000000000000000000000dEaD",
                                                {"types": {"EIP712Domain": []}, "primaryType": "EIP712Domain", "domain": {}, "message": {}}])
    assert exc.value.error["code"] == -32602 and exc.value.error["message"] == "No Signer available"
    with pytest.raises(RPCFailure) as exc:
        call(run.rpc, "eth_signTypedData_v4", [m.NODE_ACCOUNT, {"types": {"EIP712Domain": []}, "primaryType": "Nope",
                                                                 "domain": {}, "message": {}}])
    assert exc.value.error["code"] == -32602


def test_rapid_sequential_sends(run):
    m.check_rapid20(run)


def test_concurrent_sends_from_ten_accounts(run):
    m.check_concurrent10(run)


def test_fee_history(run):
    m.check_fee_history(run)


def test_get_proof_walked_to_the_state_root(run):
    m.check_get_proof(run)
