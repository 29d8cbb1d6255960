"""C-Chain steps: EIP-1559 transactions signed here (py-evm's signer), sent with
eth_sendRawTransaction, followed to their receipt; contract deploy, call and transact."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from eth.vm.forks.cancun.transactions import CancunTransactionBuilder
from eth_keys import keys as eth_keys

from .abi import (
    AbiError,
    constructor_inputs,
    decode_result,
    encode_args,
    find_function,
    load_abi,
    load_artifact,
    revert_reason,
)
from .errors import StepError
from .schema import amount_for_chain
from .transport import RPCError, Transport

if TYPE_CHECKING:
    from .accounts import Account
    from .model import Scenario

TRANSFER_GAS = 21_000
RECEIPT_WAIT_S = 30.0


@dataclass(slots=True)
class Contract:
    address: bytes
    abi: list[dict[str, Any]] | None


def _q(n: int) -> str:
    return hex(n)


WARP_ADDRESS = bytes.fromhex("0200000000000000000000000000000000000005")


class EvmRunner(Protocol):
    """What the EVM steps use of the runner (runner.Runner is one)."""

    transport: Transport
    scenario: Scenario
    contracts: dict[str, Any]
    block_time: float
    virtual: bool
    evm: EvmClient

    def account(self, ref: str) -> Account: ...

    def eth_address(self, ref: str) -> bytes: ...

    def is_known_eoa(self, addr: bytes) -> bool: ...

    def evm_for(self, f: dict[str, Any]) -> EvmClient: ...

    def record_tx(self, chain: str, tx_id: str) -> None: ...


class EvmClient:
    """Signs and sends one EVM chain's txs for the runner (the C-Chain, or an L1 by its blockchain
    ID: `label`, its RPC path `endpoint`); caches the chain ID, nonces and a gas price."""

    def __init__(self, runner: EvmRunner, label: str = "C", endpoint: str = "C") -> None:
        self.r = runner
        self.label = label
        self.endpoint = endpoint
        self.chain_id: int | None = None
        self.nonces: dict[bytes, int] = {}
        self.gas_price: int | None = None
        self._since_price = 0

    def reset(self) -> None:
        """Forget cached nonces and prices (after a revert or a raw rpc step)."""
        self.nonces.clear()
        self.gas_price = None

    def call(self, method: str, params: list[Any]) -> Any:
        return self.r.transport.call(self.endpoint, method, params)

    def _chain_id(self) -> int:
        if self.chain_id is None:
            self.chain_id = int(self.call("eth_chainId", []), 16)
        return self.chain_id

    def _nonce(self, addr: bytes) -> int:
        if addr not in self.nonces:
            self.nonces[addr] = int(self.call("eth_getTransactionCount", ["0x" + addr.hex(), "pending"]), 16)
        return self.nonces[addr]

    def _price(self) -> int:
        self._since_price += 1
        if self.gas_price is None or self._since_price > 64:
            self.gas_price = int(self.call("eth_gasPrice", []), 16)
            self._since_price = 0
        return self.gas_price

    def estimate(self, sender: bytes, to: bytes | None, value: int, data: bytes) -> int:
        tx: dict[str, Any] = {"from": "0x" + sender.hex(), "value": _q(value), "data": "0x" + data.hex()}
        if to is not None:
            tx["to"] = "0x" + to.hex()
        try:
            gas = int(self.call("eth_estimateGas", [tx]), 16)
        except RPCError as exc:
            raise StepError(f"gas estimation failed: {_rpc_message(exc)}") from None
        return gas + gas // 5  # headroom: estimate is exact for this state, a 20% margin as wallets add

    def send(self, key: bytes, to: bytes | None, value: int, data: bytes = b"", gas: int | None = None,
             max_fee: int | None = None, tip: int | None = None, wait: bool = True,
             access_list: list | None = None) -> dict[str, Any]:
        """Sign and send one EIP-1559 tx; with wait, return its receipt (a revert raises).
        `access_list`: [(address, [storage key ints])] (a Warp predicate, say)."""
        pk = eth_keys.PrivateKey(key)
        sender = pk.public_key.to_canonical_address()
        if gas is None:
            gas = TRANSFER_GAS if (not data and to is not None and self.r.is_known_eoa(to)) else \
                self.estimate(sender, to, value, data)
        for attempt in (0, 1):
            price = self._price()
            fee = max_fee if max_fee is not None else 2 * price
            tip_ = tip if tip is not None else 0
            nonce = self._nonce(sender)
            unsigned = CancunTransactionBuilder.new_unsigned_dynamic_fee_transaction(
                self._chain_id(), nonce, tip_, fee, gas, to if to is not None else b"", value, data, access_list or [])
            raw = unsigned.as_signed_transaction(pk).encode()
            try:
                tx_hash = self.call("eth_sendRawTransaction", ["0x" + raw.hex()])
            except RPCError as exc:
                msg = _rpc_message(exc)
                self.nonces.pop(sender, None)
                if attempt == 0 and max_fee is None and "less than block base fee" in msg:
                    self.gas_price = None
                    continue
                raise StepError(f"{'C-Chain' if self.label == 'C' else 'chain ' + self.label} refused the tx: {msg}") \
                    from None
            self.nonces[sender] = nonce + 1
            self.r.record_tx(self.label, tx_hash)
            if not wait:
                return {"transactionHash": tx_hash}
            receipt = self.wait_receipt(tx_hash)
            if receipt.get("status") != "0x1":
                reason = self._revert_reason(sender, to, value, data, receipt, access_list)
                raise StepError(f"transaction {tx_hash} reverted" + (f": {reason}" if reason else "")
                                + f" (block {int(receipt['blockNumber'], 16)}, gas used {int(receipt['gasUsed'], 16)})")
            return receipt
        raise StepError("unreachable")

    def _revert_reason(self, sender: bytes, to: bytes | None, value: int, data: bytes, receipt: dict,
                       access_list: list | None = None) -> str | None:
        tx: dict[str, Any] = {"from": "0x" + sender.hex(), "value": _q(value), "data": "0x" + data.hex()}
        if access_list:
            tx["accessList"] = [{"address": "0x" + a.hex(), "storageKeys": ["0x" + k.to_bytes(32, "big").hex()
                                                                           for k in keys]} for a, keys in access_list]
        if to is not None:
            tx["to"] = "0x" + to.hex()
        try:
            self.call("eth_call", [tx, receipt["blockNumber"]])
        except RPCError as exc:
            return _rpc_message(exc)
        except Exception:  # noqa: BLE001
            return None
        return None

    def wait_receipt(self, tx_hash: str) -> dict[str, Any]:
        block_time = self.r.block_time
        deadline = time.monotonic() + RECEIPT_WAIT_S
        nudges = 0
        while True:
            receipt = self.call("eth_getTransactionReceipt", [tx_hash])
            if receipt is not None:
                return receipt
            if block_time > 0 and self.r.virtual and nudges < 4:
                # interval mining on a virtual clock: the next block comes when time gets there
                self.r.transport.call("simnode", "simnode.advanceTime", {"seconds": max(1, round(block_time))})
                nudges += 1
                continue
            if time.monotonic() > deadline:
                raise StepError(f"transaction {tx_hash} was not included in a block within {RECEIPT_WAIT_S:.0f}s")
            time.sleep(0.002)


def _rpc_message(exc: RPCError) -> str:
    msg = str(exc)
    data = exc.error.get("data")
    if isinstance(data, str) and data.startswith("0x"):
        reason = revert_reason(bytes.fromhex(data[2:]))
        if reason:
            msg += f": {reason}"
    return msg


# ---------------------------------------------------------------------------------------- actions


def act_transfer_c(r: EvmRunner, f: dict[str, Any]) -> Any:
    acct = r.account(f["from"])
    to = r.eth_address(f["to"])
    value = amount_for_chain(f["amount"], "C")
    receipt = r.evm.send(acct.private_key, to, value, f.get("data", b""), gas=f.get("gas"),
                         max_fee=_opt_amount(f, "max_fee"), tip=_opt_amount(f, "tip"), wait=f.get("wait", True))
    return receipt["transactionHash"]


def _opt_amount(f: dict[str, Any], key: str) -> int | None:
    return amount_for_chain(f[key], "C") if key in f else None


def act_deploy(r: EvmRunner, f: dict[str, Any]) -> Any:
    acct = r.account(f["from"])
    try:
        if "artifact" in f:
            code, abi = load_artifact(r.scenario.base_dir / f["artifact"])
        else:
            code, abi = f["bytecode"], None
        if "abi" in f:
            abi = load_abi(f["abi"], r.scenario.base_dir)
        args = f.get("args", [])
        types = constructor_inputs(abi)
        if args and not types:
            raise AbiError("constructor arguments given but the ABI has no constructor inputs (give 'abi')")
        data = code + (encode_args(types, args, r.eth_address) if types else b"")
    except AbiError as exc:
        raise StepError(str(exc)) from None
    receipt = r.evm_for(f).send(acct.private_key, None, _opt_amount(f, "value") or 0, data, gas=f.get("gas"),
                                max_fee=_opt_amount(f, "max_fee"), tip=_opt_amount(f, "tip"))
    addr = bytes.fromhex(receipt["contractAddress"][2:])
    if "save" in f:
        r.contracts[f["save"]] = Contract(addr, abi)
    from eth_utils import to_checksum_address
    return to_checksum_address(addr)


def _contract(r: EvmRunner, f: dict[str, Any]) -> Contract:
    ref = f["contract"]
    c = r.contracts.get(ref)
    if c is None:
        c = Contract(r.eth_address(ref), None)
    if "abi" in f:
        try:
            c = Contract(c.address, load_abi(f["abi"], r.scenario.base_dir))
        except AbiError as exc:
            raise StepError(str(exc)) from None
    return c


def _calldata(r: EvmRunner, c: Contract, f: dict[str, Any]) -> tuple[bytes, Any]:
    args = f.get("args", [])
    try:
        fn = find_function(f["function"], c.abi, len(args))
        return fn.selector + encode_args(fn.inputs, args, r.eth_address), fn
    except AbiError as exc:
        raise StepError(str(exc)) from None


def act_call(r: EvmRunner, f: dict[str, Any]) -> Any:
    c = _contract(r, f)
    data, fn = _calldata(r, c, f)
    tx: dict[str, Any] = {"to": "0x" + c.address.hex(), "data": "0x" + data.hex()}
    if "from" in f:
        tx["from"] = "0x" + r.eth_address(f["from"]).hex()
    block = f.get("block", "latest")
    if isinstance(block, int):
        block = hex(block)
    try:
        out = r.evm_for(f).call("eth_call", [tx, block])
    except RPCError as exc:
        raise StepError(f"eth_call {fn.signature} failed: {_rpc_message(exc)}") from None
    try:
        return decode_result(fn.outputs, bytes.fromhex(out[2:]))
    except AbiError as exc:
        raise StepError(str(exc)) from None


def act_transact(r: EvmRunner, f: dict[str, Any]) -> Any:
    acct = r.account(f["from"])
    c = _contract(r, f)
    data, _fn = _calldata(r, c, f)
    access_list = None
    if "predicate" in f:  # a signed Warp message, carried as predicate 0 (precompiles/warp.py)
        from ..vms.evm import predicates
        chunks = predicates.encode(f["predicate"])
        access_list = [(WARP_ADDRESS, [int.from_bytes(c, "big") for c in chunks])]
    receipt = r.evm_for(f).send(acct.private_key, c.address, _opt_amount(f, "value") or 0, data, gas=f.get("gas"),
                                max_fee=_opt_amount(f, "max_fee"), tip=_opt_amount(f, "tip"),
                                wait=f.get("wait", True), access_list=access_list)
    return receipt["transactionHash"]
