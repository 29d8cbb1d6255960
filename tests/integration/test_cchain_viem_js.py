"""viem 2.57.20 (tests/js/viem_matrix.mjs) against a node that mines at once and one that mines every
second (`--block-time 1`): one script run per node covers every check; each test here asserts one
check's values (see client_matrix.py): transfers (EIP-1559, legacy), explicit and pending nonces,
deploy/read/write, custom-error and require-string reverts decoded, logs and filters, websocket
subscriptions, eth_feeHistory, eth_getProof walked to the state root, EIP-712 through the node's
account (a JSON-RPC account), 20 rapid sends and concurrent sends from 10 accounts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import client_matrix as m


@pytest.fixture(scope="module", params=list(m.MODES))
def run(request: pytest.FixtureRequest) -> Iterator[m.MatrixRun]:
    yield from m.matrix_run(request.param, "viem_matrix.mjs", "viem")


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


def _reverted(got: dict, name: str, args: list[str], data: str) -> None:
    """viem's ContractFunctionExecutionError, walked to its ContractFunctionRevertedError."""
    assert got["name"] == "ContractFunctionExecutionError"
    assert [got["errorName"], got["args"]] == [name, args]
    assert got["data"] == data and [got["decoded"]["name"], got["decoded"]["args"]] == [name, args]


def test_custom_error_decoded(run):
    v = run.value("customError")
    data = m.not_owner_data(v["stranger"], v["owner"])
    for how in ("simulate", "estimateGas", "write"):
        _reverted(v[how], "NotOwner", [v["stranger"], v["owner"]], data)
        assert v[how]["reason"] is None and v[how]["shortMessage"] == 'The contract function "set" reverted.'


def test_require_string_decoded(run):
    v = run.value("requireString")
    for how in ("simulate", "estimateGas"):
        _reverted(v[how], "Error", ["value too large"], m.error_string_data("value too large"))
        assert v[how]["reason"] == "value too large"


def test_mined_revert(run):
    v = m.check_mined_revert_receipt(run)
    owner = run.out["accounts"]["owner"]
    # replayed at its block (simulateContract with blockNumber), the call gives the error the tx reverted with
    _reverted(v["replay"], "NotOwner", [v["caller"], owner], m.not_owner_data(v["caller"], owner))


def test_logs_and_filters(run):
    m.check_logs_and_filters(run)


def test_websocket_subscriptions(run):
    m.check_websocket(run)
    assert run.value("websocket")["subscriptions"] == 3  # newHeads, newPendingTransactions, logs


def test_eip712_through_the_node_account(run):
    m.check_eip712(run)


def test_rapid_sequential_sends(run):
    m.check_rapid20(run)


def test_concurrent_sends_from_ten_accounts(run):
    m.check_concurrent10(run)


def test_fee_history(run):
    m.check_fee_history(run)


def test_get_proof_walked_to_the_state_root(run):
    m.check_get_proof(run)
