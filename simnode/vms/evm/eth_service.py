"""The eth_ methods of an EVM chain's JSON-RPC (geth's namespace): the chain's state, blocks,
txs, receipts and logs; calls, gas estimates, access lists and proofs; sending and signing txs.
Fees are eth_fees.py's, filters eth_filters.py's, Avalanche's extras eth_extras.py's."""

from __future__ import annotations

from typing import Any

from ...crypto.hashing import keccak256
from ...errors import InvalidArgument, InvalidInput
from ...formats.jsonnum import json_kind
from ...rpc.jsonrpc import EthService, InvalidParams
from .accounts import sign_hash
from .block_rows import BlockInfo
from .headers import BLACKHOLE
from .rpcjson import (block_json, decode_storage_key, go_quantity, hb, header_json, hx, parse_address, parse_bool,
                      parse_data, parse_go_string, parse_hash, parse_block_overrides,
                      parse_state_overrides, pending_tx_json, receipt_json, tx_json, tx_object_json)
from .service import EthAPI, raw_of
from .subnet import SubnetEVMChain
from .typed_data import TypedDataError, typed_data_digest
from .vmerrors import ChainError


def register_eth(svc: EthService, api: EthAPI) -> None:
    chain = api.chain
    reg = svc.register

    reg("eth_chainId", lambda: hx(chain.evm_chain_id))
    reg("eth_blockNumber", lambda: hx(chain.head.number))
    reg("eth_syncing", lambda: False)
    reg("eth_accounts", lambda: [hb(a) for a in api.accounts])
    # the etherbase: coreth's is the blackhole address, subnet-EVM's its config.json's feeRecipient
    # or the blackhole (not a block's coinbase: a genesis block's is zero);
    # coreth serves no eth_mining, eth_hashrate or eth_protocolVersion
    reg("eth_coinbase", lambda: hb(chain.fee_recipient if isinstance(chain, SubnetEVMChain) else BLACKHOLE))

    def get_balance(addr: Any, tag: Any = None) -> str:
        a = parse_address(addr)
        return hx(chain.view(api._latest_or_block(tag)).get_balance(a))
    reg("eth_getBalance", get_balance, 1, 2)

    def get_code(addr: Any, tag: Any = None) -> str:
        return hb(chain.view(api._latest_or_block(tag)).get_code(parse_address(addr)))
    reg("eth_getCode", get_code, 1, 2)

    def get_storage(addr: Any, slot: Any, tag: Any = None) -> str:
        a = parse_address(addr)
        hex_key = parse_go_string(slot, 1)
        try:
            key = decode_storage_key(hex_key)
        except InvalidInput as exc:
            raise ChainError(f"unable to decode storage key: {exc}") from None
        v = chain.view(api._latest_or_block(tag, 2)).get_storage(a, key)
        return "0x" + v.to_bytes(32, "big").hex()
    reg("eth_getStorageAt", get_storage, 2, 3)

    def get_tx_count(addr: Any, tag: Any = None) -> str:
        a = parse_address(addr)
        if isinstance(tag, str) and tag.lower() == "pending":
            return hx(chain.pending_nonce(a))
        return hx(chain.view(api._latest_or_block(tag)).get_nonce(a))
    reg("eth_getTransactionCount", get_tx_count, 1, 2)

    def block_by_number(tag: Any, full: Any = False) -> Any:
        return block_json(chain, api.resolve(tag, 0, by_number=True), parse_bool(full, 1))
    reg("eth_getBlockByNumber", block_by_number, 1, 2)

    def header_by_number(tag: Any) -> Any:
        return header_json(api.resolve(tag, 0, by_number=True))
    reg("eth_getHeaderByNumber", header_by_number, 1)

    def block_by_hash(h: Any, full: Any = False) -> Any:
        b = chain.block_by_hash(parse_hash(h))
        return None if b is None else block_json(chain, b, parse_bool(full, 1))
    reg("eth_getBlockByHash", block_by_hash, 1, 2)

    def header_by_hash(h: Any) -> Any:
        b = chain.block_by_hash(parse_hash(h))
        return None if b is None else header_json(b)
    reg("eth_getHeaderByHash", header_by_hash, 1)

    def count_by_number(tag: Any) -> Any:
        b = api.resolve(tag, 0, allow_missing=True, by_number=True)
        return None if b is None else hx(len(b.raws))
    reg("eth_getBlockTransactionCountByNumber", count_by_number, 1)

    def count_by_hash(h: Any) -> Any:
        b = chain.block_by_hash(parse_hash(h))
        return None if b is None else hx(len(b.raws))
    reg("eth_getBlockTransactionCountByHash", count_by_hash, 1)
    reg("eth_getUncleCountByBlockNumber", lambda tag: "0x0", 1)
    reg("eth_getUncleCountByBlockHash", lambda h: "0x0", 1)
    reg("eth_getUncleByBlockNumberAndIndex", lambda a, b: None, 2)
    reg("eth_getUncleByBlockHashAndIndex", lambda a, b: None, 2)

    def tx_by_hash(h: Any) -> Any:
        hh = parse_hash(h)
        loc = chain.tx_location(hh)
        if loc is not None:
            b, i = loc
            return tx_json(chain, b.txs[i], b.senders[i], b, i, b.raws[i])
        p = chain.pool.get(hh)
        if p is not None:
            return pending_tx_json(chain, p)
        return None
    reg("eth_getTransactionByHash", tx_by_hash, 1)

    def tx_by_block_index(b: BlockInfo | None, idx: Any) -> Any:
        i = go_quantity(idx, 1, "hexutil.Uint")
        if b is None or i >= len(b.raws):
            return None
        return tx_json(chain, b.txs[i], b.senders[i], b, i, b.raws[i])
    reg("eth_getTransactionByBlockNumberAndIndex",
        lambda tag, idx: tx_by_block_index(api.resolve(tag, 0, True, by_number=True), idx), 2)
    reg("eth_getTransactionByBlockHashAndIndex",
        lambda h, idx: tx_by_block_index(chain.block_by_hash(parse_hash(h)), idx), 2)

    def raw_by_hash(h: Any) -> Any:
        hh = parse_hash(h)
        loc = chain.tx_location(hh)
        if loc is not None:
            return hb(loc[0].raws[loc[1]])
        p = chain.pool.get(hh)
        return hb(p.raw) if p else None
    reg("eth_getRawTransactionByHash", raw_by_hash, 1)

    def receipt(h: Any) -> Any:
        loc = chain.tx_location(parse_hash(h))
        if loc is None:
            return None
        return receipt_json(*loc)
    reg("eth_getTransactionReceipt", receipt, 1)

    def block_receipts(tag: Any) -> Any:
        b = api.resolve(tag, 0, allow_missing=True)
        if b is None:
            return None
        return [receipt_json(b, i) for i in range(len(b.raws))]
    reg("eth_getBlockReceipts", block_receipts, 1)

    reg("eth_getLogs", api.get_logs, 1)

    def call(obj: Any, tag: Any = None, overrides: Any = None, block_overrides: Any = None) -> str:
        args = api.call_args(obj)
        return hb(api.exec.call(args, api._latest_or_block(tag), parse_state_overrides(overrides, 2),
                          parse_block_overrides(block_overrides, 3)))
    reg("eth_call", call, 1, 4)

    def estimate(obj: Any, tag: Any = None, overrides: Any = None) -> str:
        return hx(api.exec.estimate(api.call_args(obj), api._latest_or_block(tag), parse_state_overrides(overrides, 2)))
    reg("eth_estimateGas", estimate, 1, 3)

    def create_access_list(obj: Any, tag: Any = None) -> dict:
        block = api._latest_or_block(tag)
        return api.exec.access_list(api.tx_defaults(obj, estimate_gas=False), block)
    reg("eth_createAccessList", create_access_list, 1, 2)

    def get_proof(addr: Any, keys: Any, tag: Any = None) -> dict:
        a = parse_address(addr)
        if keys is not None and not isinstance(keys, list):
            raise InvalidArgument(1, f"json: cannot unmarshal {json_kind(keys)} into Go value of type []string")
        slots = [decode_storage_key(parse_go_string(k, 1)) for k in keys or []]
        return api.exec.proof(a, slots, api._latest_or_block(tag, 2))
    reg("eth_getProof", get_proof, 2, 3)
    reg("eth_sendRawTransaction", api.send_raw, 1)
    reg("eth_sendTransaction", api.send_transaction, 1)

    def sign(addr: Any, data: Any) -> str:
        a = parse_address(addr)
        key = chain.dev_keys.get(a)
        if key is None:
            raise ChainError("unknown account")
        msg = parse_data(data, 1)
        digest = keccak256(b"\x19Ethereum Signed Message:\n" + str(len(msg)).encode() + msg)
        return hb(sign_hash(key, digest))
    reg("eth_sign", sign, 2)
    reg("personal_sign", lambda data, addr, *_: sign(addr, data), 2, 3)

    def sign_typed(version: str, first: Any, second: Any) -> str:
        """EIP-712 (typed_data.py) by a node-held account; Anvil's -32602 errors. MetaMask's
        eth_signTypedData takes [data, address]; the address may come first, as in the others."""
        addr, data = (second, first) if version == "v1" and not isinstance(first, str) else (first, second)
        key = chain.dev_keys.get(parse_address(addr))
        if key is None:
            raise InvalidParams("No Signer available")
        try:
            digest = typed_data_digest(data, version)
        except TypedDataError as exc:
            raise InvalidParams(str(exc)) from None
        return hb(sign_hash(key, digest))
    reg("eth_signTypedData", lambda a, b: sign_typed("v1", a, b), 2)
    reg("eth_signTypedData_v3", lambda a, b: sign_typed("v3", a, b), 2)
    reg("eth_signTypedData_v4", lambda a, b: sign_typed("v4", a, b), 2)

    def sign_transaction(obj: Any) -> dict:
        tx, raw, _ = api.signed_tx(obj)
        return {"raw": hb(raw), "tx": tx_object_json(tx)}
    reg("eth_signTransaction", sign_transaction, 1)

    def fill_transaction(obj: Any) -> dict:
        """coreth's FillTransaction: setDefaults' tx, unsigned, for the caller to sign."""
        from .execution import args_transaction

        tx = args_transaction(chain, api.tx_defaults(obj, estimate_gas=True), (0, 0, 0))
        return {"raw": hb(raw_of(tx)), "tx": tx_object_json(tx)}
    reg("eth_fillTransaction", fill_transaction, 1)
