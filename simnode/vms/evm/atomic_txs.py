"""C-Chain atomic transactions (coreth plugin/evm/atomic): codec, IDs, gas, verification, effects.

Layouts (node-api.md §4.5), atomic codec version 0, type IDs 0 and 1 plus the secp fx types:

    UnsignedImportTx (0) = u32 networkID | 32 blockchainID | 32 sourceChain
                           | u32 n TransferableInput | u32 n EVMOutput{20 addr | u64 amount | 32 assetID}
    UnsignedExportTx (1) = u32 networkID | 32 blockchainID | 32 destinationChain
                           | u32 n EVMInput{20 addr | u64 amount | 32 assetID | u64 nonce}
                           | u32 n TransferableOutput
    Tx                   = u16 0 | u32 typeID | body | u32 nCreds | (u32 9 | Credential)…

txID = sha256(signed bytes); every signature signs sha256(unsigned bytes). A block's extra data
(post-AP5) is the codec encoding of `[]*Tx`: ``u16 0 | u32 n | (tx without its version prefix)…``.

Verification follows coreth: `verify_syntax` is UnsignedImportTx/ExportTx.Verify (rules through
Banff: AVAX only), `semantic_verify` is the semanticVerifier (flow check with the dynamic fee at a
base fee, credentials), `state_transfer` is EVMStateTransfer (balances in wei, nonces). Each failure
raises `AtomicTxError` with coreth's text.
"""

from __future__ import annotations

import builtins
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, Self

from ...codec.signed import encode_signed, read_signed_body
from ...codec import (
    CodecError,
    Credential,
    OutputOwners,
    Reader,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
    TypeRegistry,
    VerifyError,
    Writer,
    decode_utxo,
    encode_utxo,
    inputs_sorted_unique,
    is_sorted_and_unique,
    new_c_registry,
    outputs_sorted,
)
from ...codec.avax import UTXO
from ...crypto import CryptoError
from ...crypto.hashing import keccak256
from ...crypto.secp256k1 import recover_eth_address
from ...formats.ids import id_to_str
from . import rlpcodec
from simnode.errors import Refused

ID_LEN = 32
ADDR_LEN = 20
CODEC_VERSION_BYTES = b"\x00\x00"
MAX_UINT64 = (1 << 64) - 1

X2C_RATE = 10**9  # 1 nAVAX = 1 gwei = 10^9 wei
TX_BYTES_GAS = 1
COST_PER_SIGNATURE = 1000  # secp256k1fx.CostPerSignature
ATOMIC_TX_INTRINSIC_GAS = 10_000  # ap5.AtomicTxIntrinsicGas
ATOMIC_GAS_LIMIT = 100_000  # ap5.AtomicGasLimit, per block
TARGET_ATOMIC_TXS_SIZE = 40 * 1024  # bytes of atomic txs a block builder aims for
EMPTY_EXT_DATA_HASH = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")


class AtomicTxError(Refused):
    """A C-Chain atomic tx that coreth would refuse; str() is coreth's text."""


# --------------------------------------------------------------------------------------- codec


@dataclass(frozen=True, slots=True)
class EVMOutput:
    address: bytes
    amount: int
    asset_id: bytes

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.fixed_bytes(self.address, ADDR_LEN)
        w.u64(self.amount)
        w.fixed_bytes(self.asset_id, ID_LEN)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.fixed_bytes(ADDR_LEN), r.u64(), r.fixed_bytes(ID_LEN))

    def sort_key(self) -> tuple[bytes, bytes]:
        return self.address, self.asset_id


@dataclass(frozen=True, slots=True)
class EVMInput:
    address: bytes
    amount: int
    asset_id: bytes
    nonce: int

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.fixed_bytes(self.address, ADDR_LEN)
        w.u64(self.amount)
        w.fixed_bytes(self.asset_id, ID_LEN)
        w.u64(self.nonce)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(r.fixed_bytes(ADDR_LEN), r.u64(), r.fixed_bytes(ID_LEN), r.u64())

    def sort_key(self) -> tuple[bytes, bytes]:
        return self.address, self.asset_id


class UnsignedAtomicTx:
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class UnsignedImportTx(UnsignedAtomicTx):
    network_id: int
    blockchain_id: bytes
    source_chain: bytes
    imported_inputs: tuple[TransferableInput, ...]
    outs: tuple[EVMOutput, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u32(self.network_id)
        w.fixed_bytes(self.blockchain_id, ID_LEN)
        w.fixed_bytes(self.source_chain, ID_LEN)
        w.u32(len(self.imported_inputs))
        for in_ in self.imported_inputs:
            in_.encode(w, reg)
        w.u32(len(self.outs))
        for out in self.outs:
            out.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        network_id = r.u32()
        blockchain_id = r.fixed_bytes(ID_LEN)
        source = r.fixed_bytes(ID_LEN)
        ins = tuple(TransferableInput.decode(r, reg) for _ in range(r.count_u32()))
        outs = tuple(EVMOutput.decode(r, reg) for _ in range(r.count_u32()))
        return cls(network_id, blockchain_id, source, ins, outs)

    @property
    def peer_chain(self) -> bytes:
        return self.source_chain

    def input_utxos(self) -> set[bytes]:
        return {in_.utxo_id for in_ in self.imported_inputs}


@dataclass(frozen=True, slots=True)
class UnsignedExportTx(UnsignedAtomicTx):
    network_id: int
    blockchain_id: bytes
    destination_chain: bytes
    ins: tuple[EVMInput, ...]
    exported_outputs: tuple[TransferableOutput, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        w.u32(self.network_id)
        w.fixed_bytes(self.blockchain_id, ID_LEN)
        w.fixed_bytes(self.destination_chain, ID_LEN)
        w.u32(len(self.ins))
        for in_ in self.ins:
            in_.encode(w, reg)
        w.u32(len(self.exported_outputs))
        for out in self.exported_outputs:
            out.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        network_id = r.u32()
        blockchain_id = r.fixed_bytes(ID_LEN)
        dest = r.fixed_bytes(ID_LEN)
        ins = tuple(EVMInput.decode(r, reg) for _ in range(r.count_u32()))
        outs = tuple(TransferableOutput.decode(r, reg) for _ in range(r.count_u32()))
        return cls(network_id, blockchain_id, dest, ins, outs)

    @property
    def peer_chain(self) -> bytes:
        return self.destination_chain

    def input_utxos(self) -> set[bytes]:
        """coreth: one pseudo-UTXO per EVMInput, u64 nonce ‖ address padded to 32 bytes, so two
        exports spending the same account nonce conflict."""
        return {(in_.nonce.to_bytes(8, "big") + in_.address).ljust(32, b"\x00") for in_ in self.ins}


def _new_registry() -> TypeRegistry:
    reg = new_c_registry()
    reg.register(0, UnsignedImportTx)
    reg.register(1, UnsignedExportTx)
    return reg


C_REGISTRY = _new_registry()


@dataclass(frozen=True, slots=True)
class AtomicTx:
    unsigned: UnsignedImportTx | UnsignedExportTx
    creds: tuple[Credential, ...]
    unsigned_bytes: bytes = field(repr=False)
    bytes: bytes = field(repr=False)
    id: builtins.bytes = b""

    @property
    def unsigned_hash(self) -> builtins.bytes:
        return hashlib.sha256(self.unsigned_bytes).digest()

    @property
    def is_import(self) -> bool:
        return isinstance(self.unsigned, UnsignedImportTx)

    def gas_used(self) -> int:
        """Post-AP5 gas: unsigned bytes + 1000 per signature + the intrinsic 10000."""
        u = self.unsigned
        gas = len(self.unsigned_bytes) * TX_BYTES_GAS
        if isinstance(u, UnsignedImportTx):
            for in_ in u.imported_inputs:
                gas += COST_PER_SIGNATURE * len(in_.in_.input.sig_indices)  # type: ignore[attr-defined]
        else:
            gas += COST_PER_SIGNATURE * len(u.ins)
        return gas + ATOMIC_TX_INTRINSIC_GAS

    def burned(self, asset_id: builtins.bytes) -> int:
        u = self.unsigned
        if isinstance(u, UnsignedImportTx):
            spent = sum(o.amount for o in u.outs if o.asset_id == asset_id)
            got = sum(i.in_.amount for i in u.imported_inputs if i.asset_id == asset_id)  # type: ignore[attr-defined]
        else:
            spent = sum(o.out.amount for o in u.exported_outputs if o.asset_id == asset_id)  # type: ignore[attr-defined]
            got = sum(i.amount for i in u.ins if i.asset_id == asset_id)
        return max(0, got - spent)

    def input_utxos(self) -> set[builtins.bytes]:
        return self.unsigned.input_utxos()


def _read_body(r: Reader) -> AtomicTx:
    s = read_signed_body(r, C_REGISTRY, lambda r: C_REGISTRY.decode_typed(r, UnsignedAtomicTx), Credential)
    return AtomicTx(s.unsigned, s.credentials, s.unsigned_bytes, s.tx_bytes, s.tx_id)


def parse_tx(data: bytes) -> AtomicTx:
    """Signed atomic tx bytes → AtomicTx; a wrong codec version or trailing bytes are refused."""
    r = Reader(data)
    r.codec_version()
    tx = _read_body(r)
    if r.remaining:
        raise CodecError(f"trailing buffer space: read {r.offset} provided {len(data)}")
    return tx


def encode_tx(unsigned: UnsignedImportTx | UnsignedExportTx, creds: Iterable[Credential]) -> AtomicTx:
    s = encode_signed(unsigned, tuple(creds), C_REGISTRY)
    return AtomicTx(unsigned, s.credentials, s.unsigned_bytes, s.tx_bytes, s.tx_id)


def sign_tx(unsigned: UnsignedImportTx | UnsignedExportTx, keys: list[list[bytes]]) -> AtomicTx:
    """keys[i] signs credential i (one per imported input / per EVMInput), as coreth's Tx.Sign."""
    from ...crypto.secp256k1 import sign_hash

    digest = hashlib.sha256(C_REGISTRY.marshal(unsigned)).digest()
    creds = [Credential(tuple(sign_hash(k, digest) for k in ks)) for ks in keys]
    return encode_tx(unsigned, creds)


def encode_block_txs(txs: Iterable[AtomicTx]) -> bytes:
    """A block's extra data: atomic.Codec.Marshal(0, []*Tx)."""
    txs = list(txs)
    if not txs:
        return b""
    w = Writer()
    w.codec_version()
    w.u32(len(txs))
    for tx in txs:
        w.raw(tx.bytes[2:])
    return w.getvalue()


def decode_block_txs(data: bytes) -> list[AtomicTx]:
    if not data:
        return []
    r = Reader(data)
    r.codec_version()
    txs = [_read_body(r) for _ in range(r.count_u32())]
    if r.remaining:
        raise CodecError(f"trailing buffer space: read {r.offset} provided {len(data)}")
    return txs


def ext_data_hash(ext: bytes) -> bytes:
    """coreth CalcExtDataHash: rlpHash(extdata), the empty-RLP hash when there is none."""
    if not ext:
        return EMPTY_EXT_DATA_HASH
    return keccak256(rlpcodec.encode(ext))


def calculate_dynamic_fee(gas: int, base_fee_wei: int) -> int:
    """nAVAX to burn: ceil(gas × baseFee / 1e9)."""
    return -(-(gas * base_fee_wei) // X2C_RATE)


# --------------------------------------------------------------------------------------- verification


@dataclass(frozen=True, slots=True)
class AtomicContext:
    network_id: int
    chain_id: bytes  # this chain (C)
    avax_asset_id: bytes
    peers: frozenset[bytes]  # chains of the same subnet (X and P)


def _verify_obj(obj: Any) -> None:
    try:
        obj.verify()
    except (VerifyError, CodecError) as exc:
        raise AtomicTxError(str(exc)) from None


def verify_syntax(tx: AtomicTx, ctx: AtomicContext) -> None:
    """UnsignedImportTx.Verify / UnsignedExportTx.Verify (rules: AP5 + Banff active)."""
    u = tx.unsigned
    if isinstance(u, UnsignedImportTx):
        if not u.imported_inputs:
            raise AtomicTxError("tx has no imported inputs")
        if u.network_id != ctx.network_id:
            raise AtomicTxError("tx was issued with a different network ID")
        if u.blockchain_id != ctx.chain_id:
            raise AtomicTxError("tx has wrong chain ID")
        if not u.outs:
            raise AtomicTxError("tx has no EVM outputs")
        if u.source_chain not in ctx.peers:
            raise AtomicTxError("tx has wrong chain ID")
        for out in u.outs:
            if out.asset_id != ctx.avax_asset_id:
                raise AtomicTxError("import output cannot contain non-AVAX in Banff")
        for in_ in u.imported_inputs:
            try:
                in_.verify()
            except (VerifyError, CodecError) as exc:
                raise AtomicTxError(f"atomic input failed verification: {exc}") from None
            if in_.asset_id != ctx.avax_asset_id:
                raise AtomicTxError("import input cannot contain non-AVAX in Banff")
        if not inputs_sorted_unique(u.imported_inputs):
            raise AtomicTxError("inputs not sorted and unique")
        if not is_sorted_and_unique(u.outs, EVMOutput.sort_key):
            raise AtomicTxError("outputs not sorted and unique")
        return
    if not u.exported_outputs:
        raise AtomicTxError("tx has no export outputs")
    if u.network_id != ctx.network_id:
        raise AtomicTxError("tx was issued with a different network ID")
    if u.blockchain_id != ctx.chain_id:
        raise AtomicTxError("tx has wrong chain ID")
    if u.destination_chain not in ctx.peers:
        raise AtomicTxError("tx has wrong chain ID")
    for ein in u.ins:
        if ein.asset_id != ctx.avax_asset_id:
            raise AtomicTxError("export input cannot contain non-AVAX in Banff")
    for out in u.exported_outputs:
        _verify_obj(out)
        if out.asset_id != ctx.avax_asset_id:
            raise AtomicTxError("export output cannot contain non-AVAX in Banff")
    if not outputs_sorted(u.exported_outputs, C_REGISTRY):
        raise AtomicTxError("tx outputs not sorted")
    if not is_sorted_and_unique(u.ins, EVMInput.sort_key):
        raise AtomicTxError("inputs not sorted and unique")


def _flow_check(produced: list[tuple[bytes, int]], consumed: list[tuple[bytes, int]]) -> None:
    prod: dict[bytes, int] = {}
    cons: dict[bytes, int] = {}
    for table, items in ((prod, produced), (cons, consumed)):
        for asset, amount in items:
            table[asset] = table.get(asset, 0) + amount
            if table[asset] > MAX_UINT64:
                raise AtomicTxError("overflow")
    for asset, amount in prod.items():
        if amount > cons.get(asset, 0):
            raise AtomicTxError("insufficient funds")


UTXOReader = Callable[[bytes, bytes], "bytes | None"]  # (source chain, utxo ID) -> UTXO bytes


def semantic_verify(tx: AtomicTx, ctx: AtomicContext, base_fee_wei: int, get_utxo: UTXOReader,
                    now_s: int) -> None:
    """coreth's semanticVerifier: syntax, flow check with the fee at `base_fee_wei`, credentials."""
    verify_syntax(tx, ctx)
    u = tx.unsigned
    fee = calculate_dynamic_fee(tx.gas_used(), base_fee_wei)
    kind = "import" if isinstance(u, UnsignedImportTx) else "export"
    produced: list[tuple[bytes, int]] = [(ctx.avax_asset_id, fee)]
    if isinstance(u, UnsignedImportTx):
        produced += [(o.asset_id, o.amount) for o in u.outs]
        consumed = [(i.asset_id, i.in_.amount) for i in u.imported_inputs]  # type: ignore[attr-defined]
    else:
        produced += [(o.asset_id, o.out.amount) for o in u.exported_outputs]  # type: ignore[attr-defined]
        consumed = [(i.asset_id, i.amount) for i in u.ins]
    try:
        _flow_check(produced, consumed)
    except AtomicTxError as exc:
        raise AtomicTxError(f"{kind} tx flow check failed due to: {exc}") from None

    if isinstance(u, UnsignedImportTx):
        if len(tx.creds) != len(u.imported_inputs):
            raise AtomicTxError(f"incorrect number of credentials: ({len(u.imported_inputs)} vs. {len(tx.creds)})")
        from ..avm.txs import TxError
        from ..avm.verify import verify_credentials

        raws = []
        for in_ in u.imported_inputs:
            raw = get_utxo(u.source_chain, in_.utxo_id)
            if raw is None:
                raise AtomicTxError(f"failed to fetch import UTXOs from {id_to_str(u.source_chain)} due to: not found")
            raws.append(raw)
        digest = tx.unsigned_hash
        for in_, raw, cred in zip(u.imported_inputs, raws, tx.creds, strict=True):
            try:
                utxo = decode_utxo(raw, C_REGISTRY)
            except CodecError as exc:
                raise AtomicTxError(f"failed to unmarshal UTXO: {exc}") from None
            if utxo.asset_id != in_.asset_id:
                raise AtomicTxError("asset IDs in the input don't match the utxo")
            try:
                out = utxo.out
                if not isinstance(out, TransferOutput) or not isinstance(in_.in_, TransferInput):
                    raise TxError("wrong utxo type")
                _verify_obj(out)
                _verify_obj(cred)
                if out.amount != in_.in_.amount:
                    raise TxError(f"utxo amount and input amount are not equal: {out.amount} != {in_.in_.amount}")
                verify_credentials(digest, in_.in_.input.sig_indices, cred, out.owners, now_s)
            except (TxError, AtomicTxError) as exc:
                raise AtomicTxError(f"import tx transfer failed verification: {exc}") from None
        return

    if len(u.ins) != len(tx.creds):
        raise AtomicTxError(
            f"export tx contained incorrect number of credentials want {len(u.ins)} got {len(tx.creds)}")
    digest = tx.unsigned_hash
    for ein, cred in zip(u.ins, tx.creds, strict=True):
        _verify_obj(cred)
        if len(cred.signatures) != 1:
            raise AtomicTxError(f"incorrect number of signatures want 1 signature for EVM Input Credential, "
                                f"but got {len(cred.signatures)}")
        try:
            got = recover_eth_address(digest, cred.signatures[0])
        except CryptoError as exc:
            raise AtomicTxError(str(exc)) from None
        if got != ein.address:
            raise AtomicTxError("signature doesn't match public key")


class EVMState(Protocol):
    def get_balance(self, address: bytes) -> int: ...

    def set_balance(self, address: bytes, balance: int) -> None: ...

    def get_nonce(self, address: bytes) -> int: ...

    def set_nonce(self, address: bytes, nonce: int) -> None: ...


class StateOverlay:
    """Writes kept in memory over a read-only account view (verification at the tip)."""

    def __init__(self, base: Any) -> None:
        self.base = base
        self.balances: dict[bytes, int] = {}
        self.nonces: dict[bytes, int] = {}

    def get_balance(self, address: bytes) -> int:
        b = self.balances.get(address)
        return self.base.get_balance(address) if b is None else b

    def set_balance(self, address: bytes, balance: int) -> None:
        self.balances[address] = balance

    def get_nonce(self, address: bytes) -> int:
        n = self.nonces.get(address)
        return self.base.get_nonce(address) if n is None else n

    def set_nonce(self, address: bytes, nonce: int) -> None:
        self.nonces[address] = nonce


def state_transfer(tx: AtomicTx, ctx: AtomicContext, state: EVMState) -> None:
    """EVMStateTransfer: import credits amount × 1e9 wei per EVMOutput; export checks and debits
    each EVMInput (balance, then nonce = account nonce) and bumps the nonce."""
    u = tx.unsigned
    if isinstance(u, UnsignedImportTx):
        for out in u.outs:
            state.set_balance(out.address, state.get_balance(out.address) + out.amount * X2C_RATE)
        return
    nonces: dict[bytes, int] = {}
    for ein in u.ins:
        amount = ein.amount * X2C_RATE
        balance = state.get_balance(ein.address)
        if balance < amount:
            raise AtomicTxError("insufficient funds")
        state.set_balance(ein.address, balance - amount)
        if state.get_nonce(ein.address) != ein.nonce:
            raise AtomicTxError("invalid nonce")
        nonces[ein.address] = ein.nonce
    for addr in sorted(nonces):
        state.set_nonce(addr, nonces[addr] + 1)


@dataclass(frozen=True, slots=True)
class AtomicEffects:
    # (source chain, utxo ID, owner addresses) removed from C's shared memory
    removes: list[tuple[bytes, bytes, tuple[bytes, ...]]]
    # (destination chain, UTXO) put into the destination's shared memory
    puts: list[tuple[bytes, UTXO]]


def owners_of(raw_utxo: bytes) -> tuple[bytes, ...]:
    try:
        utxo = decode_utxo(raw_utxo, C_REGISTRY)
    except CodecError:
        return ()
    owners = getattr(utxo.out, "owners", None)
    return owners.addresses if isinstance(owners, OutputOwners) else ()


def atomic_effects(tx: AtomicTx, get_utxo: UTXOReader) -> AtomicEffects:
    u = tx.unsigned
    if isinstance(u, UnsignedImportTx):
        removes = []
        for in_ in u.imported_inputs:
            raw = get_utxo(u.source_chain, in_.utxo_id)
            removes.append((u.source_chain, in_.utxo_id, owners_of(raw) if raw else ()))
        return AtomicEffects(removes, [])
    puts = [(u.destination_chain, UTXO(tx.id, i, out.asset_id, out.out))
            for i, out in enumerate(u.exported_outputs)]
    return AtomicEffects([], puts)


def utxo_bytes(utxo: UTXO) -> bytes:
    return encode_utxo(utxo, C_REGISTRY)
