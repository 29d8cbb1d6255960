"""X- and P-Chain steps.

X-Chain txs are built here from what the public API tells (avm.getUTXOs, avm.getTxFee,
info.getBlockchainID), signed with the account keys and sent with avm.issueTx. P-Chain txs are
built with the P-Chain's own wallet (`simnode.vms.platform.wallet.PBuilder`, which reads the
VM's UTXOs and its dynamic fee) on the node's loop, or over the public API when the node is not
in this process (remote_p.py), then sent signed with platform.issueTx.
Every tx is followed to its acceptance (getTxStatus) before the step ends.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..codec import TransferableOutput, TransferOutput, decode_utxo
from ..formats.address import parse_address
from ..formats.errors import FormatError
from ..formats.ids import id_from_str, id_to_str, node_id_from_str, node_id_to_str
from ..vms.avm.wallet import BuildError, XContext, XWallet, owner
from ..vms.avm.txs import InitialState
from .accounts import Account, derive_key
from .errors import StepError
from .schema import amount_for_chain
from .transport import ErrorReply, Transport

if TYPE_CHECKING:
    from .evm import EvmClient
    from .model import Scenario

ACCEPT_WAIT_S = 30.0
SUBNET_EVM_GENESIS = {
    "config": {
        "chainId": 99999, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
        "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
        "muirGlacierBlock": 0, "feeConfig": {
            "gasLimit": 12000000, "targetBlockRate": 2, "minBaseFee": 25000000000, "targetGas": 60000000,
            "baseFeeChangeDenominator": 36, "minBlockGasCost": 0, "maxBlockGasCost": 1000000,
            "blockGasCostStep": 200000},
    },
    "alloc": {"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC": {"balance": "0x52B7D2DCC80CD2E4000000"}},
    "nonce": "0x0", "timestamp": "0x0", "extraData": "0x00", "gasLimit": "0xb71b00", "difficulty": "0x0",
    "mixHash": "0x0000000000000000000000000000000000000000000000000000000000000000",
    "coinbase": "0x0000000000000000000000000000000000000000", "number": "0x0", "gasUsed": "0x0",
    "parentHash": "0x0000000000000000000000000000000000000000000000000000000000000000",
}


class XPRunner(Protocol):
    """What the X- and P-Chain steps use of the runner (runner.Runner is one)."""

    transport: Transport
    scenario: Scenario
    network_id: int
    accounts: dict[str, Account]
    saved: dict[str, Any]
    block_time: float
    virtual: bool
    evm: EvmClient

    def account(self, ref: str) -> Account: ...

    def eth_address(self, ref: str) -> bytes: ...

    def evm_for(self, f: dict[str, Any]) -> EvmClient: ...

    def record_tx(self, chain: str, tx_id: str) -> None: ...

    def now_ms(self) -> int: ...

    def on_node(self, fn: Callable[[], Any]) -> Any: ...

    def node_chain(self, alias: str) -> Any: ...


class XPClient:
    def __init__(self, runner: XPRunner) -> None:
        self.r = runner
        self._chain_ids: dict[str, bytes] = {}
        self._avax: bytes | None = None
        self._fees: dict[str, int] | None = None
        self._remote_p: Any = None

    def reset(self) -> None:
        pass

    # ------------------------------------------------------------------ lookups

    def chain_id(self, alias: str) -> bytes:
        if alias not in self._chain_ids:
            res = self.r.transport.call("info", "info.getBlockchainID", {"alias": alias})
            self._chain_ids[alias] = id_from_str(res["blockchainID"])
        return self._chain_ids[alias]

    def avax(self) -> bytes:
        if self._avax is None:
            res = self.r.transport.call("X", "avm.getAssetDescription", {"assetID": "AVAX"})
            self._avax = id_from_str(res["assetID"])
        return self._avax

    def x_fees(self) -> dict[str, int]:
        if self._fees is None:
            res = self.r.transport.call("X", "avm.getTxFee", {})
            self._fees = {k: int(v) for k, v in res.items()}
        return self._fees

    def address(self, chain: str, ref: str) -> str:
        if ref in self.r.accounts:
            return self.r.accounts[ref].address(chain)
        if isinstance(ref, str) and ref.startswith(f"{chain}-"):
            try:
                parse_address(ref)
            except FormatError as exc:
                raise StepError(f"invalid address {ref!r}: {exc}") from None
            return ref
        raise StepError(f"'{ref}' is not an account or a {chain}-Chain address")

    def short(self, chain: str, ref: str) -> bytes:
        return parse_address(self.address(chain, ref))[2]

    def asset(self, ref: str | None) -> bytes:
        if ref is None or ref == "AVAX":
            return self.avax()
        if ref in self.r.saved and isinstance(self.r.saved[ref], str):
            ref = self.r.saved[ref]
        try:
            return id_from_str(ref)
        except (FormatError, ValueError):
            res = self.r.transport.call("X", "avm.getAssetDescription", {"assetID": ref})
            return id_from_str(res["assetID"])

    def balance(self, chain: str, ref: str, asset: str | None) -> int:
        addr = self.address(chain, ref)
        if chain == "X":
            res = self.r.transport.call("X", "avm.getBalance", {"address": addr, "assetID": asset or "AVAX"})
        else:
            res = self.r.transport.call("P", "platform.getBalance", {"addresses": [addr]})
        return int(res["balance"])

    # ------------------------------------------------------------------ acceptance

    def wait(self, chain: str, tx_id: str) -> None:
        endpoint, method, done = {"X": ("X", "avm.getTxStatus", "Accepted"),
                                  "P": ("P", "platform.getTxStatus", "Committed"),
                                  "C": ("C_avax", "avax.getAtomicTxStatus", "Accepted")}[chain]
        deadline = time.monotonic() + ACCEPT_WAIT_S
        nudges = 0
        while True:
            res = self.r.transport.call(endpoint, method, {"txID": tx_id})
            status = res.get("status")
            if status == done:
                return
            if status in ("Dropped", "Rejected", "Aborted"):
                raise StepError(f"{chain}-Chain tx {tx_id} {status.lower()}: {res.get('reason', '')}".rstrip(": "))
            if chain == "C" and self.r.block_time > 0 and self.r.virtual and nudges < 4:
                # interval mining on a virtual clock: the next block comes when time gets there
                self.r.transport.call("simnode", "simnode.advanceTime", {"seconds": max(1, round(self.r.block_time))})
                nudges += 1
                continue
            if time.monotonic() > deadline:
                raise StepError(f"{chain}-Chain tx {tx_id} not accepted within {ACCEPT_WAIT_S:.0f}s (status {status})")
            time.sleep(0.001)

    def issue(self, chain: str, tx_bytes: bytes) -> str:
        endpoint, method = {"X": ("X", "avm.issueTx"), "P": ("P", "platform.issueTx"),
                            "C": ("C_avax", "avax.issueTx")}[chain]
        try:
            res = self.r.transport.call(endpoint, method, {"tx": "0x" + tx_bytes.hex() + _checksum(tx_bytes),
                                                           "encoding": "hex"})
        except ErrorReply as exc:
            raise StepError(f"{chain}-Chain refused the tx: {exc}") from None
        tx_id = res["txID"]
        self.r.record_tx(chain, tx_id)
        self.wait(chain, tx_id)
        return tx_id

    # ------------------------------------------------------------------ X-Chain wallet (public API)

    def x_utxos(self, addr: str, source: str | None = None) -> list[Any]:
        from ..vms.avm.txs import X_REGISTRY

        out = []
        params: dict[str, Any] = {"addresses": [addr], "limit": 1024, "encoding": "hex"}
        if source:
            params["sourceChain"] = source
        while True:
            res = self.r.transport.call("X", "avm.getUTXOs", params)
            for h in res["utxos"]:
                raw = bytes.fromhex(h[2:])[:-4]
                out.append(decode_utxo(raw, X_REGISTRY))
            if int(res["numFetched"]) < 1024:
                break
            params["startIndex"] = res["endIndex"]
        return out

    def x_wallet(self, acct: Account, utxos: list[Any] | None = None) -> XWallet:
        """acct's X wallet over its UTXOs (from avm.getUTXOs unless given) at the node's time."""
        fees = self.x_fees()
        ctx = XContext(self.r.network_id, self.chain_id("X"), self.avax(), fees["txFee"], fees["createAssetTxFee"])
        if utxos is None:
            utxos = self.x_utxos(acct.x_address)
        return XWallet(ctx, (acct.private_key,), tuple(utxos), self.r.now_ms() // 1000)

    def x_issue(self, acct: Account, build: Callable[[XWallet], Any], utxos: list[Any] | None = None) -> str:
        """Build an X tx with acct's wallet and issue it."""
        try:
            tx = build(self.x_wallet(acct, utxos))
        except BuildError as exc:
            raise StepError(f"cannot build the X-Chain tx for {acct.name}: {exc}") from None
        return self.issue("X", tx.bytes)

    def x_transfer(self, acct: Account, to: bytes, amount: int, asset: bytes, memo: bytes) -> str:
        out = TransferableOutput(asset, TransferOutput(amount, owner(to)))
        return self.x_issue(acct, lambda w: w.base_tx([out], memo))

    # ------------------------------------------------------------------ P-Chain wallet (the VM's builder)

    def p_build(self, keys: list[bytes], fn: Any) -> bytes:
        """fn(builder, vm) → the signed tx bytes: on the node's loop with the VM's own state when the
        node runs in this process, else over the public API (remote_p.py)."""
        from ..vms.platform.wallet import BuildError, PBuilder

        def build() -> bytes:
            vm = self.r.node_chain("P")
            signed = fn(PBuilder(vm, keys), vm)
            return signed.tx_bytes

        try:
            if getattr(self.r.transport, "node", None) is None:
                from .remote_p import RemotePBuilder
                platform = self.remote_platform()
                return fn(RemotePBuilder(platform, keys), platform).tx_bytes
            return self.r.on_node(build)
        except BuildError as exc:
            raise StepError(f"cannot build the P-Chain tx: {exc}") from None

    def remote_platform(self) -> Any:
        if self._remote_p is None:
            from ..formats.address import hrp_for_network
            from .remote_p import RemotePlatform
            self._remote_p = RemotePlatform(self.r.transport, self.r.network_id, hrp_for_network(self.r.network_id))
        return self._remote_p

    # ------------------------------------------------------------------ steps

    def transfer(self, chain: str, acct: Account, to_addr: str, amount: int, asset: str | None = None,
                 memo: str = "") -> str:
        to = parse_address(to_addr)[2]
        if chain == "X":
            return self.x_transfer(acct, to, amount, self.asset(asset), memo.encode())
        raw = self.p_build([acct.private_key], lambda b, vm: b.base_tx(to, amount, memo.encode()))
        return self.issue("P", raw)

    # ------------------------------------------------------------------ C-Chain atomic txs (avax.*)

    def c_atomic_context(self) -> Any:
        from ..vms.evm.atomic_txs import AtomicContext

        return AtomicContext(self.r.network_id, self.chain_id("C"), self.avax(),
                             frozenset({self.chain_id("X"), self.chain_id("P")}))

    def c_base_fee(self) -> int:
        return int(self.r.transport.call("C", "eth_baseFee", []), 16)

    def c_export(self, acct: Account, dest_id: bytes, to: Account, amount: int) -> str:
        """C → X/P: `amount` nAVAX out of acct's C account (its eth nonce), fee at eth_baseFee."""
        from ..vms.evm.atomic_builder import BuildError, build_export

        nonce = int(self.r.transport.call("C", "eth_getTransactionCount", [acct.c_address, "latest"]), 16)
        try:
            tx = build_export(self.c_atomic_context(), dest_id, amount, to.short_address, acct.private_key,
                              nonce, self.c_base_fee())
        except BuildError as exc:
            raise StepError(f"cannot build the C-Chain export: {exc}") from None
        tx_id = self.issue("C", tx.bytes)
        self.r.evm.nonces.pop(acct.eth_address_bytes, None)  # the export used (and bumped) the account nonce
        return tx_id

    def c_import(self, source: str, to: Account) -> str:
        """X/P → C: every AVAX UTXO waiting for `to` in C's shared memory, to its eth address."""
        from ..vms.evm.atomic_builder import BuildError, build_import
        from ..vms.evm.atomic_txs import C_REGISTRY

        params: dict[str, Any] = {"addresses": [to.bech32("C")], "sourceChain": source, "limit": 1024,
                                  "encoding": "hex"}
        utxos = []
        while True:
            res = self.r.transport.call("C_avax", "avax.getUTXOs", params)
            utxos += [decode_utxo(bytes.fromhex(h[2:])[:-4], C_REGISTRY) for h in res["utxos"]]
            if int(res["numFetched"]) < 1024:
                break
            params["startIndex"] = res["endIndex"]
        if not utxos:
            raise StepError(f"nothing exported from {source} to {to.name} is waiting on C")
        try:
            tx = build_import(self.c_atomic_context(), self.chain_id(source), utxos, to.eth_address_bytes,
                              [to.private_key], self.c_base_fee(), self.r.now_ms() // 1000)
        except BuildError as exc:
            raise StepError(f"cannot build the C-Chain import: {exc}") from None
        return self.issue("C", tx.bytes)

    def export(self, f: dict[str, Any]) -> Any:
        src, dst = f["from_chain"], f["to_chain"]
        if src == dst:
            raise StepError(f"cannot export from {src} to itself")
        acct = self.r.account(f["from"])
        to = self.r.account(f.get("to", f["from"]))
        # exported amounts are nAVAX (a C export moves whole nAVAX out of the wei balance)
        amount = amount_for_chain(f["amount"], dst if src == "C" else src)
        dest_id = self.chain_id(dst)
        if src == "C":
            export_id = self.c_export(acct, dest_id, to, amount)
        elif src == "X":
            out = TransferableOutput(self.avax(), TransferOutput(amount, owner(to.short_address)))
            export_id = self.x_issue(acct, lambda w: w.export_tx(dest_id, [out]))
        else:
            raw = self.p_build([acct.private_key], lambda b, vm: b.export_tx(dest_id, to.short_address, amount))
            export_id = self.issue("P", raw)
        if not f.get("import", True):
            return export_id
        import_id = self.import_(dst, src, to)
        return {"export": export_id, "import": import_id}

    def import_(self, chain: str, source: str, to: Account) -> str:
        if chain == "C":
            return self.c_import(source, to)
        src_id = self.chain_id(source)
        if chain == "P":
            raw = self.p_build([to.private_key], lambda b, vm: b.import_tx(src_id, to.short_address))
            return self.issue("P", raw)
        utxos = self.x_utxos(to.x_address, source)
        if not utxos:
            raise StepError(f"nothing exported from {source} to {to.name} is waiting on X")
        return self.x_issue(to, lambda w: w.import_tx(src_id, utxos))

    def create_asset(self, f: dict[str, Any]) -> str:
        acct = self.r.account(f["from"])
        holder = self.r.account(f["to"]).short_address if "to" in f else acct.short_address
        state = InitialState(0, (TransferOutput(f["supply"], owner(holder)),))
        return self.x_issue(acct, lambda w: w.create_asset_tx(f["name"], f["symbol"], f.get("denomination", 9),
                                                              [state]))

    def node_identity(self, ref: str) -> tuple[bytes, Any]:
        """(node ID, BLS key): a "NodeID-…" (no BLS key) or a name → the node ID derived from the
        scenario's seed and the name.

        The BLS key is the one the node derives for a validator it creates (warp.keystore): from the
        seed of the node the scenario runs on when it runs in this process (a replay's node has the
        scenario's seed; a pytest fixture's may not), so the validator signs Warp messages there."""
        from ..warp.keystore import derived_secret_key

        if ref.startswith("NodeID-"):
            try:
                return node_id_from_str(ref), None
            except (FormatError, ValueError) as exc:
                raise StepError(f"invalid node ID {ref!r}: {exc}") from None
        node_id = derive_key(self.r.scenario.seed, ref, "node")[:20]
        node = getattr(self.r.transport, "node", None)
        key_seed = node.config.seed if node is not None else self.r.scenario.seed
        return node_id, derived_secret_key(key_seed, node_id)

    def add_validator(self, f: dict[str, Any]) -> str:
        acct = self.r.account(f["from"])
        node_id, sk = self.node_identity(f["node"])
        if sk is None:
            raise StepError("add_validator needs a node name (its NodeID and BLS key are derived from the seed)")
        weight = amount_for_chain(f["amount"], "P")
        reward = self.r.account(f["reward_to"]).short_address if "reward_to" in f else None
        shares = f.get("delegation_fee", 20_000)
        duration = f["duration"]
        raw = self.p_build([acct.private_key], lambda b, vm: b.add_validator(
            node_id, vm.next_block_time() + duration, weight, sk, shares, reward))
        self.r.saved.setdefault("_nodes", {})[f["node"]] = node_id_to_str(node_id)
        return self.issue("P", raw)

    def add_delegator(self, f: dict[str, Any]) -> str:
        acct = self.r.account(f["from"])
        node_id, _ = self.node_identity(f["node"])
        weight = amount_for_chain(f["amount"], "P")
        reward = self.r.account(f["reward_to"]).short_address if "reward_to" in f else None
        duration = f["duration"]
        raw = self.p_build([acct.private_key], lambda b, vm: b.add_delegator(
            node_id, vm.next_block_time() + duration, weight, reward))
        return self.issue("P", raw)

    def create_subnet(self, f: dict[str, Any]) -> str:
        from ..vms.platform.wallet import owner

        acct = self.r.account(f["from"])
        owners = [self.r.account(o) for o in f.get("owners", [f["from"]])]
        threshold = f.get("threshold", 1)
        if threshold > len(owners):
            raise StepError(f"threshold {threshold} is more than the {len(owners)} owner(s)")
        keys = [acct.private_key] + [o.private_key for o in owners if o.name != acct.name]
        raw = self.p_build(keys, lambda b, vm: b.create_subnet(
            owner(*(o.short_address for o in owners), threshold=threshold)))
        return self.issue("P", raw)

    def _id_ref(self, ref: str, what: str) -> bytes:
        value = self.r.saved.get(ref, ref)
        if isinstance(value, dict):
            value = value.get("id") or value.get("txID")
        try:
            return id_from_str(value)
        except (FormatError, ValueError, TypeError):
            raise StepError(f"'{ref}' is not a saved {what} nor a {what} ID") from None

    def create_chain(self, f: dict[str, Any]) -> str:
        from ..formats.ids import SUBNET_EVM_VM_ID, vm_id_from_name

        acct = self.r.account(f["from"])
        subnet = self._id_ref(f["subnet"], "subnet")
        vm_ref = f.get("vm", "subnet-evm")
        if vm_ref in ("subnet-evm", "subnetevm"):
            vm_id = SUBNET_EVM_VM_ID
        else:
            try:
                vm_id = id_from_str(vm_ref)
            except (FormatError, ValueError):
                vm_id = vm_id_from_name(vm_ref)
        genesis = f.get("genesis", SUBNET_EVM_GENESIS)
        if isinstance(genesis, str):
            try:
                genesis_bytes = (self.r.scenario.base_dir / genesis).read_bytes()
            except OSError as exc:
                raise StepError(f"cannot read genesis {genesis}: {exc.strerror}") from None
        else:
            genesis_bytes = json.dumps(genesis, separators=(",", ":")).encode()
        owners = self._subnet_keys(acct)
        raw = self.p_build(owners, lambda b, vm: b.create_chain(subnet, f["name"], vm_id, genesis_bytes))
        return self.issue("P", raw)

    def _subnet_keys(self, acct: Account) -> list[bytes]:
        keys = [acct.private_key]
        keys += [a.private_key for a in self.r.accounts.values() if a.name != acct.name]
        return keys

    def convert_to_l1(self, f: dict[str, Any]) -> str:
        acct = self.r.account(f["from"])
        subnet = self._id_ref(f["subnet"], "subnet")
        chain = self._id_ref(f["chain"], "chain")
        manager = self.r.eth_address(f["manager"]) if "manager" in f else bytes(20)
        vdrs = []
        for v in f.get("validators", []) or [{"node_id": "l1-validator-0"}]:
            node_id, sk = self.node_identity(v["node_id"])
            if "public_key" in v:  # a real node's BLS key: its public key and proof of possession
                sk = (_hex_arg(v["public_key"]), _hex_arg(v["proof_of_possession"]))
            if sk is None:
                raise StepError("L1 validators need a node name (their BLS keys are derived from the seed) or a "
                                "NodeID with public_key and proof_of_possession")
            weight = int(v.get("weight", 100))
            balance = amount_for_chain(_amount(v.get("balance", "1 AVAX")), "P")
            vdrs.append((node_id, weight, balance, sk))
        raw = self.p_build(self._subnet_keys(acct), lambda b, vm: b.convert_subnet(subnet, chain, manager, vdrs))
        return self.issue("P", raw)


    def register_l1_validator(self, f: dict[str, Any]) -> str:
        """The L1's manager (an EVM account here, the conversion's manager address) sends the
        RegisterL1Validator message from the manager chain (sendWarpMessage); the L1's validators
        sign it (warp_getMessageAggregateSignature); `from` issues the RegisterL1ValidatorTx."""
        from eth_abi import encode as abi_encode

        from ..crypto import bls
        from ..warp import acp77

        acct = self.r.account(f["from"])
        subnet = self._id_ref(f["subnet"], "subnet")
        chain = self._id_ref(f["chain"], "chain")
        manager = self.r.account(f["manager"])
        node_id, sk = self.node_identity(f["node"])
        if sk is None:
            raise StepError("register_l1_validator needs a node name (its NodeID and BLS key are derived from "
                            "the seed)")
        owner = acp77.PChainOwner(1, (acct.short_address,))
        expiry = self.r.now_ms() // 1000 + int(f.get("expiry", 3600))
        reg = acp77.RegisterL1Validator(subnet, node_id, bls.public_key(sk), expiry, owner, owner,
                                        int(f.get("weight", 100)))
        client = self.r.evm_for({"evm_chain": id_to_str(chain)})
        receipt = client.send(manager.private_key, WARP_ADDRESS, 0,
                              SEND_WARP_MESSAGE + abi_encode(["bytes"], [reg.encode()]))
        message_id = receipt["logs"][0]["topics"][2]
        try:
            signed = client.call("warp_getMessageAggregateSignature", [message_id, 67, ""])
        except ErrorReply as exc:
            raise StepError(f"the L1's validators did not sign the RegisterL1Validator message: {exc}") from None
        balance = amount_for_chain(f["balance"] if "balance" in f else _amount("1 AVAX"), "P")
        raw = self.p_build([acct.private_key], lambda b, vm: b.register_l1_validator(
            balance, sk, bytes.fromhex(signed[2:])))
        self.r.saved.setdefault("_nodes", {})[f["node"]] = node_id_to_str(node_id)
        return self.issue("P", raw)

    def l1_acknowledgement(self, f: dict[str, Any]) -> str:
        """The signed Warp message of an L1-related P-Chain tx (ConvertSubnetToL1Tx,
        RegisterL1ValidatorTx, SetL1ValidatorWeightTx) from the aggregator's GET route, as 0x-hex:
        what a manager contract on the L1 receives as a predicate."""
        tx_id = id_to_str(self._id_ref(f["tx"], "P-Chain tx"))
        status, body = self.r.transport.get(f"/v1/signatureAggregator/fuji/aggregateSignatures/{tx_id}")
        if status != 201:
            raise StepError(f"the aggregator answered {status}: {body}")
        return "0x" + body["signedMessage"]


WARP_ADDRESS = bytes.fromhex("0200000000000000000000000000000000000005")
SEND_WARP_MESSAGE = bytes.fromhex("ee5b48eb")  # sendWarpMessage(bytes)


def _amount(value: Any) -> tuple[int, str]:
    from .schema import Invalid, v_amount
    try:
        return v_amount(value)
    except Invalid as exc:
        raise StepError(str(exc)) from None


def _hex_arg(value: Any) -> bytes:
    from .schema import Invalid, v_hex
    try:
        return v_hex(value)
    except Invalid as exc:
        raise StepError(str(exc)) from None


def _checksum(data: bytes) -> str:
    from ..crypto.hashing import sha256
    return sha256(data)[-4:].hex()
