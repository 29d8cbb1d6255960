"""The must-reject corpus of the differential check: mutated copies of real signed txs, malformed
issueTx arguments and malformed JSON-RPC requests. Both nodes must refuse each the same way."""

from __future__ import annotations

from typing import Any

from . import diff_reads as R
from .differ import Call
from .diff_txs import ISSUE, with_checksum

SECP_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
X_ID = bytes.fromhex("d891ad56056d9c01f18f43f58b5c784ad07a4a49cf3d1f11623804b5cba2c6bf")  # local X-Chain ID


def _u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def mutations(vector: dict[str, Any]) -> list[tuple[str, bytes]]:
    """Variants of a signed tx that a node must refuse, none re-signed: each name says the change."""
    signed = bytes.fromhex(vector["signedTxHex"].removeprefix("0x"))
    unsigned = bytes.fromhex(vector["unsignedTxHex"].removeprefix("0x"))
    creds = signed[len(unsigned):]
    out: list[tuple[str, bytes]] = []
    n_creds = int.from_bytes(creds[:4], "big")
    if n_creds:
        # the first credential's first signature sits after u32 n | u32 typeID | u32 nSigs
        sig_at = len(unsigned) + 12
        sig = bytearray(signed[sig_at:sig_at + 65])
        flip = bytearray(signed)
        flip[sig_at] ^= 0x01
        out.append(("sig_r_flipped", bytes(flip)))
        for v in (2, 27):
            bad_v = bytearray(signed)
            bad_v[sig_at + 64] = v
            out.append((f"sig_v_{v}", bytes(bad_v)))
        s = int.from_bytes(sig[32:64], "big")
        high = bytearray(signed)
        high[sig_at + 32:sig_at + 64] = (SECP_N - s).to_bytes(32, "big")
        high[sig_at + 64] ^= 1
        out.append(("sig_high_s", bytes(high)))
        zero = bytearray(signed)
        zero[sig_at:sig_at + 65] = bytes(65)
        out.append(("sig_zero", bytes(zero)))
        out.append(("no_credentials", unsigned + _u32(0)))
        out.append(("extra_credential", unsigned + _u32(n_creds + 1) + creds[4:] + _u32(9) + _u32(0)))
        out.append(("credential_wrong_type", unsigned + creds[:4] + _u32(14) + creds[8:]))
    body = bytearray(signed)
    body[6:10] = _u32(1)
    out.append(("network_id_1", bytes(body)))
    body = bytearray(signed)
    body[6:10] = _u32(12346)
    out.append(("network_id_12346", bytes(body)))
    body = bytearray(signed)
    body[10:42] = bytes(32) if signed[10:42] == X_ID else X_ID
    out.append(("other_blockchain_id", bytes(body)))
    out.append(("codec_version_1", b"\x00\x01" + signed[2:]))
    out.append(("type_id_999", signed[:2] + _u32(999) + signed[6:]))
    out.append(("type_id_swapped", signed[:2] + _u32(int.from_bytes(signed[2:6], "big") ^ 1) + signed[6:]))
    out.append(("trailing_byte", signed + b"\x00"))
    out.append(("trailing_credential_bytes", signed + _u32(9)))
    for cut in sorted({1, 2, 6, 10, 42, len(unsigned) // 2, len(unsigned), len(signed) - 1}):
        if 0 < cut < len(signed):
            out.append((f"truncated_to_{cut}", signed[:cut]))
    amount = bytearray(signed)
    amount[len(unsigned) - 5] ^= 0x01  # inside the last field of the unsigned body: the signature no longer matches
    out.append(("unsigned_byte_flipped", bytes(amount)))
    return out


def mutation_calls(vector: dict[str, Any]) -> list[Call]:
    path, method = ISSUE[vector["chain"]]
    return [Call(path, R.req(method, {"tx": with_checksum(raw.hex()), "encoding": "hex"}),
                 label=f"mutant {vector['name']} {name}") for name, raw in mutations(vector)]


def issue_arg_calls(vector: dict[str, Any]) -> list[Call]:
    """issueTx with arguments that are wrong before the tx is even parsed."""
    path, method = ISSUE[vector["chain"]]
    good = vector["signedTxIssueHex"]
    bad_sum = good[:-2] + ("00" if good[-2:] != "00" else "01")
    variants: list[tuple[str, Any]] = [
        ("no_0x", {"tx": good[2:], "encoding": "hex"}),
        ("bad_checksum", {"tx": bad_sum, "encoding": "hex"}),
        ("no_checksum", {"tx": vector["signedTxHex"], "encoding": "hex"}),
        ("odd_length", {"tx": good[:-1], "encoding": "hex"}),
        ("empty_tx", {"tx": "", "encoding": "hex"}),
        ("no_tx", {"encoding": "hex"}),
        ("encoding_json", {"tx": good, "encoding": "json"}),
        ("encoding_foo", {"tx": good, "encoding": "foo"}),
        ("encoding_HEX", {"tx": "0xzz", "encoding": "HEX"}),
        ("tx_number", {"tx": 5}),
    ]
    return [Call(path, R.req(method, params), label=f"issue-args {vector['chain']} {name}")
            for name, params in variants]


GORILLA_PATHS = (R.INFO, R.X, R.P, R.AVAX, R.HEALTH)
GORILLA_METHOD = {R.INFO: "info.getNetworkID", R.X: "avm.getHeight", R.P: "platform.getHeight",
                  R.AVAX: "avax.getAtomicTxStatus", R.HEALTH: "health.health"}


def malformed_jsonrpc_calls() -> list[Call]:
    """Broken envelopes on every gorilla endpoint and on the C-Chain's geth endpoint."""
    calls: list[Call] = []
    for path in GORILLA_PATHS:
        m = GORILLA_METHOD[path]
        svc, name = m.split(".")
        bodies: list[tuple[str, Any]] = [
            ("invalid_json", '{"jsonrpc":"2.0","id":1,'),
            ("batch", f'[{{"jsonrpc":"2.0","id":1,"method":"{m}","params":{{}}}}]'),
            ("empty_batch", "[]"),
            ("jsonrpc_1", {"jsonrpc": "1.0", "id": 1, "method": m, "params": {}}),
            ("no_jsonrpc", {"id": 1, "method": m, "params": {}}),
            ("no_dot", R.req(name, {})),
            ("upper_method", R.req(f"{svc}.{name[0].upper()}{name[1:]}", {})),
            ("unknown_service", R.req(f"nope.{name}", {})),
            ("unknown_method", R.req(f"{svc}.fooBar", {})),
            ("params_string", R.req(m, "x")),
            ("params_number", R.req(m, 7)),
            ("params_array_empty", R.req(m, [])),
            ("params_array_obj", R.req(m, [{}])),
            ("params_null", R.req(m, None)),
            ("id_string", R.req(m, {}, rid="abc")),
            ("id_float", '{"jsonrpc":"2.0","id":1.50,"method":"' + m + '","params":{}}'),
            ("id_null", {"jsonrpc": "2.0", "id": None, "method": m, "params": {}}),
            ("no_id", {"jsonrpc": "2.0", "method": m, "params": {}}),
            ("html_chars", R.req(f"{svc}.<b>", {})),
            ("empty_body", ""),
        ]
        calls += [Call(path, b, label=f"jsonrpc {path} {n}") for n, b in bodies]
        calls.append(Call(path, None, label=f"jsonrpc {path} GET"))
        calls.append(Call(path, R.req(m, {}), label=f"jsonrpc {path} text/plain", content_type="text/plain"))
        calls.append(Call(path, R.req(m, {}), label=f"jsonrpc {path} no content type", content_type=""))
        calls.append(Call(path, R.req(m, {}), label=f"jsonrpc {path} json charset",
                          content_type="application/json; charset=UTF-8"))
        calls.append(Call(path, R.req(m, {}), label=f"jsonrpc {path} PUT", http_method="PUT"))
    geth: list[tuple[str, Any]] = [
        ("invalid_json", '{"jsonrpc":"2.0","id":1,'),
        ("empty_batch", "[]"),
        ("batch_two", [R.req("eth_chainId", []), R.req("net_version", [], rid=2)]),
        ("batch_bad_item", '[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}, 5]'),
        ("jsonrpc_1", {"jsonrpc": "1.0", "id": 1, "method": "eth_chainId", "params": []}),
        ("unknown_method", R.req("eth_foo", [])),
        ("params_object", R.req("eth_getBalance", {"a": 1})),
        ("too_many_args", R.req("eth_chainId", [1, 2])),
        ("bad_arg", R.req("eth_getBalance", ["0x12", "latest"])),
        ("missing_arg", R.req("eth_getBalance", [])),
        ("bad_block_tag", R.req("eth_getBalance", [R.EWOQ_EVM, "earliest2"])),
        ("bad_quantity", R.req("eth_getBlockByNumber", ["0x", False])),
        ("leading_zero", R.req("eth_getBlockByNumber", ["0x01", False])),
        ("no_id", {"jsonrpc": "2.0", "method": "eth_chainId", "params": []}),
        ("id_string", R.req("eth_chainId", [], rid="abc")),
        ("no_method", {"jsonrpc": "2.0", "id": 1, "params": []}),
        ("raw_tx_bad_rlp", R.req("eth_sendRawTransaction", ["0x1234"])),
        ("raw_tx_not_hex", R.req("eth_sendRawTransaction", ["xyz"])),
        ("call_revert_no_to", R.req("eth_call", [{"data": "0xfe"}, "latest"])),
        ("estimate_revert", R.req("eth_estimateGas", [{"data": "0x60006000fd"}])),
        ("unknown_tx", R.req("eth_getTransactionByHash", ["0x" + "11" * 32])),
        ("unknown_receipt", R.req("eth_getTransactionReceipt", ["0x" + "11" * 32])),
        ("short_hash", R.req("eth_getTransactionByHash", ["0x11"])),
        ("subnet_evm_method", R.req("eth_feeConfig", [])),
        ("debug_disabled", R.req("debug_traceTransaction", ["0x" + "11" * 32])),
        ("txpool_disabled", R.req("txpool_status", [])),
    ]
    calls += [Call(R.C, b, label=f"jsonrpc C/rpc {n}") for n, b in geth]
    calls.append(Call(R.C, None, label="jsonrpc C/rpc GET"))
    calls.append(Call(R.C, R.req("eth_chainId", []), label="jsonrpc C/rpc text/plain", content_type="text/plain"))
    calls.append(Call(R.C, R.req("eth_chainId", []), label="jsonrpc C/rpc PUT", http_method="PUT"))
    calls.append(Call("/ext/bc/Q", R.req("avm.getHeight", {}), label="unknown chain path"))
    calls.append(Call("/ext/nothing", R.req("info.getNetworkID", {}), label="unknown path"))
    return calls


def bad_argument_calls() -> list[Call]:
    """Read methods given wrong arguments: the error messages must match."""
    specs: list[tuple[str, str, Any]] = [
        (R.X, "avm.getTx", {"txID": "11111111111111111111111111111111LpoYY"}),
        (R.X, "avm.getTx", {"txID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.X, "avm.getTx", {"txID": "abc"}),
        (R.X, "avm.getTx", {"txID": ""}),
        (R.X, "avm.getTxStatus", {"txID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.X, "avm.getBlock", {"blockID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.X, "avm.getBlockByHeight", {"height": "999"}),
        (R.X, "avm.getBlockByHeight", {"height": 0, "encoding": "json"}),
        (R.X, "avm.getUTXOs", {"addresses": []}),
        (R.X, "avm.getUTXOs", {"addresses": ["P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"]}),
        (R.X, "avm.getUTXOs", {"addresses": ["X-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5"]}),
        (R.X, "avm.getUTXOs", {"addresses": [R.EWOQ_X], "sourceChain": "Q"}),
        (R.X, "avm.getUTXOs", {"addresses": [R.EWOQ_X], "encoding": "json"}),
        (R.X, "avm.getUTXOs", {"addresses": ["junk"]}),
        (R.X, "avm.getAssetDescription", {"assetID": "NOPE"}),
        (R.X, "avm.getAssetDescription", {"assetID": ""}),
        (R.X, "avm.getBalance", {"address": R.EWOQ_X, "assetID": "NOPE"}),
        (R.X, "avm.getBalance", {"address": "junk", "assetID": "AVAX"}),
        (R.X, "avm.buildGenesis", {}),
        (R.P, "platform.getTx", {"txID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.P, "platform.getTxStatus", {"txID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.P, "platform.getSubnet", {"subnetID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.P, "platform.getBlockchainStatus", {}),
        (R.P, "platform.validatedBy", {"blockchainID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.P, "platform.getCurrentValidators", {"subnetID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.P, "platform.getCurrentValidators", {"nodeIDs": ["NodeID-111"]}),
        (R.P, "platform.getL1Validator", {"validationID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.P, "platform.getValidatorsAt", {"height": "999999"}),
        (R.P, "platform.getValidatorsAt", {}),
        (R.P, "platform.getBalance", {"addresses": []}),
        (R.P, "platform.getBalance", {"addresses": ["X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"]}),
        (R.P, "platform.getStake", {"addresses": []}),
        (R.P, "platform.sampleValidators", {"size": 0}),
        (R.P, "platform.sampleValidators", {"size": 100}),
        (R.P, "platform.getBlock", {"blockID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.P, "platform.getBlockByHeight", {"height": "999"}),
        (R.P, "platform.getRewardUTXOs", {"txID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.P, "platform.getPendingValidators", {}),
        (R.AVAX, "avax.getUTXOs", {"addresses": [R.EWOQ_C_BECH]}),
        (R.AVAX, "avax.getUTXOs", {"addresses": [], "sourceChain": "X"}),
        (R.AVAX, "avax.getUTXOs", {"addresses": [R.EWOQ_X], "sourceChain": "X"}),
        (R.AVAX, "avax.getAtomicTxStatus", {"txID": "11111111111111111111111111111111LpoYY"}),
        (R.AVAX, "avax.getAtomicTx", {"txID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.AVAX, "avax.getAtomicTxStatus", {"txID": "2gH76TLUdUx1qThbVoFQzV3QsD6TiUFnRq3vCt6BDpNSpTjtRv"}),
        (R.AVAX, "avax.version", {}),
        (R.INFO, "info.getBlockchainID", {}),
        (R.INFO, "info.peers", {"nodeIDs": ["junk"]}),
    ]
    return [Call(p, R.req(m, params), label=f"bad-args {m}") for p, m, params in specs]
