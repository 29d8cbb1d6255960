"""simnode.codec: packer rules, round trips of every structure, rejections, and the reference vectors."""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simnode.codec import (
    UTXO,
    BaseTxFields,
    CodecError,
    Credential,
    Input,
    MintOperation,
    MintOutput,
    OutputOwners,
    Reader,
    StakeableLockIn,
    StakeableLockOut,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
    TypeRegistry,
    VerifyError,
    Writer,
    decode_utxo,
    encode_signed,
    encode_utxo,
    inputs_sorted_unique,
    new_c_registry,
    new_p_registry,
    new_x_registry,
    outputs_sorted,
    parse_signed,
    read_signed_body,
    sort_inputs,
    sort_outputs,
)
from simnode.codec.nftfx import NftCredential, NftMintOperation, NftMintOutput, NftTransferOperation, NftTransferOutput
from simnode.codec.propertyfx import (
    PropertyBurnOperation,
    PropertyCredential,
    PropertyMintOperation,
    PropertyMintOutput,
    PropertyOwnedOutput,
)
from simnode.codec.registry import TransferableIn, TransferableOut
from simnode.formats import id_from_str, id_to_str

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
TX_VECTORS = json.loads((VECTORS / "tx-vectors.json").read_text())
NEGATIVE_VECTORS = json.loads((VECTORS / "negative-vectors.json").read_text())


def hexbytes(text: str) -> bytes:
    return bytes.fromhex(text.removeprefix("0x"))


# --- test-only chain txs (the real ones live in simnode/vms/*/txs.py) ---------------------------


@dataclass(frozen=True, slots=True)
class DemoBaseTx:
    """X BaseTx (0) / P BaseTx (34): just the avax.BaseTx fields."""

    base: BaseTxFields

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        return cls(BaseTxFields.decode(r, reg))


@dataclass(frozen=True, slots=True)
class DemoImportTx:
    """P ImportTx (17): BaseTx fields | 32 sourceChain | u32 n TransferableInput."""

    base: BaseTxFields
    source_chain: bytes
    imported_inputs: tuple[TransferableInput, ...]

    def encode(self, w: Writer, reg: TypeRegistry) -> None:
        self.base.encode(w, reg)
        w.fixed_bytes(self.source_chain, 32)
        w.u32(len(self.imported_inputs))
        for in_ in self.imported_inputs:
            in_.encode(w, reg)

    @classmethod
    def decode(cls, r: Reader, reg: TypeRegistry) -> Self:
        base = BaseTxFields.decode(r, reg)
        source = r.fixed_bytes(32)
        return cls(base, source, tuple(TransferableInput.decode(r, reg) for _ in range(r.count_u32())))


def demo_x_registry() -> TypeRegistry:
    reg = new_x_registry()
    reg.register(0, DemoBaseTx)
    return reg


def demo_p_registry() -> TypeRegistry:
    reg = new_p_registry()
    reg.register(17, DemoImportTx)
    return reg


def registry_for(chain: str) -> TypeRegistry:
    return {"X": new_x_registry, "P": new_p_registry, "C": new_c_registry}[chain]()


# --- strategies ------------------------------------------------------------------------------

u32s = st.integers(0, 2**32 - 1)
u64s = st.integers(0, 2**64 - 1)
ids32 = st.binary(min_size=32, max_size=32)
addrs = st.binary(min_size=20, max_size=20)
sigs = st.binary(min_size=65, max_size=65)
payloads = st.binary(max_size=64)

owners_st = st.builds(OutputOwners, u64s, u32s, st.lists(addrs, max_size=4).map(tuple))
input_st = st.builds(Input, st.lists(u32s, max_size=4).map(tuple))
transfer_output_st = st.builds(TransferOutput, u64s, owners_st)
mint_output_st = st.builds(MintOutput, owners_st)
transfer_input_st = st.builds(TransferInput, u64s, input_st)
credential_st = st.builds(Credential, st.lists(sigs, max_size=3).map(tuple))
lock_out_st = st.builds(StakeableLockOut, u64s, transfer_output_st)
lock_in_st = st.builds(StakeableLockIn, u64s, transfer_input_st)

X_TYPED = {
    TransferInput: transfer_input_st,
    MintOutput: mint_output_st,
    TransferOutput: transfer_output_st,
    MintOperation: st.builds(MintOperation, input_st, mint_output_st, transfer_output_st),
    Credential: credential_st,
    NftMintOutput: st.builds(NftMintOutput, u32s, owners_st),
    NftTransferOutput: st.builds(NftTransferOutput, u32s, payloads, owners_st),
    NftMintOperation: st.builds(NftMintOperation, input_st, u32s, payloads, st.lists(owners_st, max_size=3).map(tuple)),
    NftTransferOperation: st.builds(
        NftTransferOperation, input_st, st.builds(NftTransferOutput, u32s, payloads, owners_st)
    ),
    NftCredential: st.builds(NftCredential, st.lists(sigs, max_size=3).map(tuple)),
    PropertyMintOutput: st.builds(PropertyMintOutput, owners_st),
    PropertyOwnedOutput: st.builds(PropertyOwnedOutput, owners_st),
    PropertyMintOperation: st.builds(
        PropertyMintOperation,
        input_st,
        st.builds(PropertyMintOutput, owners_st),
        st.builds(PropertyOwnedOutput, owners_st),
    ),
    PropertyBurnOperation: st.builds(PropertyBurnOperation, input_st),
    PropertyCredential: st.builds(PropertyCredential, st.lists(sigs, max_size=3).map(tuple)),
}
P_TYPED = {
    TransferInput: transfer_input_st,
    TransferOutput: transfer_output_st,
    Credential: credential_st,
    Input: input_st,
    OutputOwners: owners_st,
    StakeableLockIn: lock_in_st,
    StakeableLockOut: lock_out_st,
}
x_values = st.one_of(*X_TYPED.values())
p_values = st.one_of(*P_TYPED.values())

p_out_st = st.one_of(transfer_output_st, lock_out_st)
p_in_st = st.one_of(transfer_input_st, lock_in_st)
transferable_output_st = st.builds(TransferableOutput, ids32, p_out_st)
transferable_input_st = st.builds(TransferableInput, ids32, u32s, ids32, p_in_st)
utxo_st = st.builds(UTXO, ids32, u32s, ids32, p_out_st)
base_tx_st = st.builds(
    BaseTxFields,
    u32s,
    ids32,
    st.lists(transferable_output_st, max_size=3).map(tuple),
    st.lists(transferable_input_st, max_size=3).map(tuple),
    st.binary(max_size=300),
)


def typed_round_trip(reg: TypeRegistry, value: Any) -> None:
    data = reg.marshal(value)
    decoded = reg.unmarshal_typed(data)
    assert decoded == value
    assert type(decoded) is type(value)
    assert reg.marshal(decoded) == data


# --- round trips -----------------------------------------------------------------------------


@given(x_values)
def test_x_typed_round_trip(value: Any) -> None:
    typed_round_trip(new_x_registry(), value)


@given(p_values)
def test_p_typed_round_trip(value: Any) -> None:
    typed_round_trip(new_p_registry(), value)


@given(st.one_of(transfer_input_st, transfer_output_st, credential_st, input_st, owners_st))
def test_c_typed_round_trip(value: Any) -> None:
    typed_round_trip(new_c_registry(), value)


@given(base_tx_st)
def test_base_tx_fields_round_trip(value: BaseTxFields) -> None:
    reg = new_p_registry()
    data = reg.marshal(value, typed=False)
    assert reg.unmarshal(data, BaseTxFields) == value


@given(utxo_st)
def test_utxo_round_trip(utxo: UTXO) -> None:
    reg = new_p_registry()
    data = encode_utxo(utxo, reg)
    assert data[:2] == b"\0\0"
    assert decode_utxo(data, reg) == utxo
    assert encode_utxo(decode_utxo(data, reg), reg) == data


@given(base_tx_st, st.lists(credential_st, max_size=3))
def test_signed_round_trip(base: BaseTxFields, creds: list[Credential]) -> None:
    reg = new_p_registry()
    reg.register(34, DemoBaseTx)
    signed = encode_signed(DemoBaseTx(base), creds, reg)
    parsed = parse_signed(signed.tx_bytes, reg)
    assert parsed == signed
    assert parsed.tx_bytes.startswith(parsed.unsigned_bytes)


# --- packer ----------------------------------------------------------------------------------


def test_writer_reader_primitives() -> None:
    w = Writer()
    w.u8(1)
    w.u16(0x0203)
    w.u32(0x04050607)
    w.u64(0x08090A0B0C0D0E0F)
    w.bool(True)
    w.fixed_bytes(b"ab", 2)
    w.bytes_u32(b"xyz")
    w.str_u16("AVAX")
    data = w.getvalue()
    assert data.hex() == (
        "01" "0203" "04050607" "08090a0b0c0d0e0f" "01" "6162" "00000003" "78797a" "0004" "41564158"
    )
    r = Reader(data)
    assert (r.u8(), r.u16(), r.u32(), r.u64(), r.bool()) == (1, 0x0203, 0x04050607, 0x08090A0B0C0D0E0F, True)
    assert r.fixed_bytes(2) == b"ab"
    assert r.bytes_u32() == b"xyz"
    assert r.str_u16() == "AVAX"
    assert r.offset == len(data)
    r.done()


def test_non_utf8_string_round_trips() -> None:
    w = Writer()
    w.str_u16(Reader(b"\x00\x02\xff\xfe").str_u16())
    assert w.getvalue() == b"\x00\x02\xff\xfe"


def test_reader_errors() -> None:
    with pytest.raises(CodecError, match="insufficient length"):
        Reader(b"\x00\x00\x00").u32()
    with pytest.raises(CodecError, match="insufficient length"):
        Reader(b"").u8()
    with pytest.raises(CodecError, match="unexpected value when unpacking bool"):
        Reader(b"\x02").bool()
    with pytest.raises(CodecError, match="trailing buffer space"):
        Reader(b"\x00").done()
    with pytest.raises(CodecError, match="^max slice length exceeded; array length, 4294967295, exceeds maximum "
                       "length, 2147483647$"):
        Reader(b"\xff\xff\xff\xff" + b"\0" * 8).bytes_u32()
    with pytest.raises(CodecError, match="^packer has insufficient length for input$"):
        Reader(b"\x00\x00\x00\x09" + b"\0" * 8).bytes_u32()
    with pytest.raises(CodecError, match="exceeds maximum length"):
        Reader(b"\x00\x00\x00\x05hello").bytes_u32(max_len=4)
    with pytest.raises(CodecError, match="insufficient length"):
        Reader(b"\x00\x03ab").str_u16()
    # a count beyond the remaining bytes is read as is: the first short element fails
    assert Reader(b"\x10\x00\x00\x00" + b"\0" * 16).count_u32() == 0x10000000
    # a short read names the field kind, as Go's reflect codec wraps it
    for read, kind in ((lambda r: r.count_u32(), "slice"), (lambda r: r.u32(), "uint32"),
                       (lambda r: r.u64(), "uint64"), (lambda r: r.type_id(), "interface")):
        with pytest.raises(CodecError, match=f"^couldn't unmarshal {kind}: packer has insufficient length for input$"):
            read(Reader(b"\x00\x00"))
    with pytest.raises(CodecError, match="unknown codec version"):
        Reader(b"\x00\x01").codec_version()


def test_writer_errors() -> None:
    w = Writer()
    for method, value in ((w.u8, 256), (w.u16, -1), (w.u32, 2**32), (w.u64, 2**64), (w.u32, True)):
        with pytest.raises(CodecError, match="does not fit"):
            method(value)
    with pytest.raises(CodecError, match="expected 20 bytes but got 19"):
        w.fixed_bytes(b"\0" * 19, 20)
    with pytest.raises(CodecError, match="size is larger than limit"):
        w.str_u16("x" * 65536)
    with pytest.raises(CodecError, match="not a bool"):
        w.bool(1)  # type: ignore[arg-type]
    assert w.getvalue() == b""


def test_oversize_owner_count_rejected_before_allocating() -> None:
    data = (0).to_bytes(8, "big") + (1).to_bytes(4, "big") + (2**32 - 1).to_bytes(4, "big")
    with pytest.raises(CodecError, match="^max slice length exceeded; array length, 4294967295, exceeds maximum"):
        OutputOwners.decode(Reader(data), new_p_registry())
    # a count Go accepts: the addresses are read one by one, the first missing one fails
    data = (0).to_bytes(8, "big") + (1).to_bytes(4, "big") + (2**31 - 1).to_bytes(4, "big") + bytes(20)
    with pytest.raises(CodecError, match="^packer has insufficient length for input$"):
        OutputOwners.decode(Reader(data), new_p_registry())


# --- registry --------------------------------------------------------------------------------


def test_unknown_type_id() -> None:
    with pytest.raises(CodecError, match="unknown type ID 6"):
        new_p_registry().unmarshal_typed(b"\x00\x00\x00\x00\x00\x06" + b"\0" * 16)
    with pytest.raises(CodecError, match="unknown type ID 12"):
        new_c_registry().class_of(12)
    with pytest.raises(CodecError, match="unknown type ID 4294967295"):
        new_x_registry().decode_typed(Reader(b"\xff\xff\xff\xff"))
    with pytest.raises(CodecError, match="unknown type ID 21"):
        new_c_registry().class_of(21)


def test_interface_mismatch_rejected() -> None:
    reg = new_p_registry()
    w = Writer()
    w.fixed_bytes(bytes(32), 32)
    reg.encode_typed(w, TransferInput(1, Input(())))  # an input where an output belongs
    with pytest.raises(CodecError, match=r"^couldn't unmarshal interface: \*secp256k1fx.TransferInput does not implement interface avax.TransferableOut$"):
        TransferableOutput.decode(Reader(w.getvalue()), reg)
    w = Writer()
    w.u64(5)
    reg.encode_typed(w, TransferOutput(1, OutputOwners(0, 0, ())))
    with pytest.raises(CodecError, match=r"^couldn't unmarshal interface: \*secp256k1fx.TransferOutput does not implement interface avax.TransferableIn$"):
        StakeableLockIn.decode(Reader(w.getvalue()), reg)
    assert issubclass(StakeableLockOut, TransferableOut) and issubclass(StakeableLockIn, TransferableIn)


def test_unregistered_and_duplicate_types() -> None:
    with pytest.raises(CodecError, match="unregistered type"):
        new_x_registry().marshal(StakeableLockOut(1, TransferOutput(1, OutputOwners(0, 0, ()))))
    with pytest.raises(CodecError, match="unregistered type"):
        new_x_registry().marshal(OutputOwners(0, 0, ()))  # 11 on X is the nft TransferOutput
    reg = new_x_registry()
    with pytest.raises(ValueError, match="already"):
        reg.register(7, DemoBaseTx)
    with pytest.raises(ValueError, match="already"):
        reg.register(100, TransferOutput)
    clone = reg.copy("X2")
    clone.register(0, DemoBaseTx)
    assert clone.class_of(0) is DemoBaseTx
    with pytest.raises(CodecError):
        reg.class_of(0)


def test_shared_ids_across_chains() -> None:
    for reg in (new_x_registry(), new_p_registry(), new_c_registry()):
        assert (reg.class_of(5), reg.class_of(7), reg.class_of(9)) == (TransferInput, TransferOutput, Credential)
    assert new_x_registry().class_of(10) is NftMintOutput
    assert new_p_registry().class_of(10) is Input
    assert new_p_registry().class_of(11) is OutputOwners
    assert new_p_registry().class_of(21) is StakeableLockIn
    assert new_p_registry().class_of(22) is StakeableLockOut


# --- verification ------------------------------------------------------------------------------

A1, A2 = b"\x01" * 20, b"\x02" * 20


def test_output_owners_verify() -> None:
    OutputOwners(0, 1, (A1, A2)).verify()
    OutputOwners(0, 0, ()).verify()
    with pytest.raises(VerifyError, match="^addresses not sorted and unique$"):
        OutputOwners(0, 1, (A2, A1)).verify()
    with pytest.raises(VerifyError, match="^addresses not sorted and unique$"):
        OutputOwners(0, 1, (A1, A1)).verify()
    with pytest.raises(VerifyError, match="^output is unspendable$"):
        OutputOwners(0, 3, (A1, A2)).verify()
    with pytest.raises(VerifyError, match="^output representation should be optimized$"):
        OutputOwners(0, 0, (A1,)).verify()


def test_inputs_and_outputs_verify() -> None:
    with pytest.raises(VerifyError, match="^address indices not sorted and unique$"):
        Input((1, 0)).verify()
    with pytest.raises(VerifyError, match="^address indices not sorted and unique$"):
        Input((0, 0)).verify()
    with pytest.raises(VerifyError, match="^input has no value$"):
        TransferInput(0, Input((0,))).verify()
    with pytest.raises(VerifyError, match="^output has no value$"):
        TransferOutput(0, OutputOwners(0, 1, (A1,))).verify()
    with pytest.raises(VerifyError, match="^invalid locktime$"):
        StakeableLockOut(0, TransferOutput(1, OutputOwners(0, 1, (A1,)))).verify()
    with pytest.raises(VerifyError, match="^shouldn't nest stakeable locks$"):
        StakeableLockOut(5, StakeableLockOut(5, TransferOutput(1, OutputOwners(0, 1, (A1,))))).verify()
    with pytest.raises(VerifyError, match="^shouldn't nest stakeable locks$"):
        StakeableLockIn(5, StakeableLockIn(5, TransferInput(1, Input(())))).verify()
    with pytest.raises(VerifyError, match="^payload too large$"):
        NftTransferOutput(0, b"\0" * 1025, OutputOwners(0, 1, (A1,))).verify()
    with pytest.raises(VerifyError, match="^empty asset ID is not valid$"):
        TransferableOutput(bytes(32), TransferOutput(1, OutputOwners(0, 1, (A1,)))).verify()
    with pytest.raises(VerifyError, match="^address indices not sorted and unique$"):
        owners = OutputOwners(0, 1, (A1,))
        MintOperation(Input((2, 1)), MintOutput(owners), TransferOutput(1, owners)).verify()
    base = BaseTxFields(12345, b"\x07" * 32, (), (), b"")
    base.verify(12345, b"\x07" * 32)
    with pytest.raises(VerifyError, match="^tx has wrong network ID$"):
        base.verify(1, b"\x07" * 32)
    with pytest.raises(VerifyError, match="^tx has wrong chain ID$"):
        base.verify(12345, bytes(32))
    with pytest.raises(VerifyError, match="^memo exceeds maximum length: 257 > 256$"):
        BaseTxFields(12345, b"\x07" * 32, (), (), b"m" * 257).verify(12345, b"\x07" * 32)


def test_sorting_helpers() -> None:
    reg = new_p_registry()
    owners = OutputOwners(0, 1, (A1,))
    outs = (
        TransferableOutput(b"\x02" * 32, TransferOutput(1, owners)),
        TransferableOutput(b"\x01" * 32, TransferOutput(9, owners)),
        TransferableOutput(b"\x01" * 32, TransferOutput(2, owners)),
    )
    assert not outputs_sorted(outs, reg)
    ordered = sort_outputs(outs, reg)
    assert [(o.asset_id[0], o.out.amount) for o in ordered] == [(1, 2), (1, 9), (2, 1)]  # type: ignore[attr-defined]
    assert outputs_sorted(ordered, reg)
    assert outputs_sorted(ordered[:1] * 2, reg)  # equal outputs are allowed
    ins = (
        TransferableInput(b"\x02" * 32, 0, b"\x01" * 32, TransferInput(1, Input((0,)))),
        TransferableInput(b"\x01" * 32, 1, b"\x01" * 32, TransferInput(1, Input((0,)))),
        TransferableInput(b"\x01" * 32, 0, b"\x01" * 32, TransferInput(1, Input((0,)))),
    )
    assert not inputs_sorted_unique(ins)
    assert inputs_sorted_unique(sort_inputs(ins))
    assert not inputs_sorted_unique((ins[0], ins[0]))


# --- reference vectors ---------------------------------------------------------------------------


def all_vector_utxos() -> list[tuple[str, dict[str, Any]]]:
    return [(v["name"], u) for v in TX_VECTORS for u in v["inputUTXOs"] + v["producedUTXOs"]]


@pytest.mark.parametrize("name,entry", all_vector_utxos())
def test_vector_utxos_decode_and_reencode(name: str, entry: dict[str, Any]) -> None:
    reg = registry_for(entry["heldBy"])
    data = hexbytes(entry["hex"])
    utxo = decode_utxo(data, reg)
    assert encode_utxo(utxo, reg) == data, name
    assert id_to_str(utxo.tx_id) == entry["txID"]
    assert utxo.output_index == entry["outputIndex"]
    assert id_to_str(utxo.asset_id) == entry["assetID"]
    assert id_to_str(utxo.id) == entry["utxoID"]
    if "amount" in entry and isinstance(utxo.out, TransferOutput):
        assert utxo.out.amount == int(entry["amount"])
    utxo.out.verify()  # type: ignore[attr-defined]


def test_vector_utxos_cover_mint_output() -> None:
    types = {type(decode_utxo(hexbytes(u["hex"]), registry_for(u["heldBy"])).out) for _, u in all_vector_utxos()}
    assert types == {TransferOutput, MintOutput}


def vector(name: str) -> dict[str, Any]:
    return next(v for v in TX_VECTORS + NEGATIVE_VECTORS if v["name"] == name)


@pytest.mark.parametrize(
    "name,make_registry",
    [("X.BaseTx.send_1_AVAX_with_change", demo_x_registry), ("P.ImportTx.from_X", demo_p_registry)],
)
def test_signed_vectors_parse(name: str, make_registry: Any) -> None:
    v = vector(name)
    reg = make_registry()
    data = hexbytes(v["signedTxHex"])
    signed = parse_signed(data, reg)
    assert signed.tx_bytes == data
    assert signed.unsigned_bytes == hexbytes(v["unsignedTxHex"])
    assert signed.unsigned_hash == hexbytes(v["unsignedTxSha256"])
    assert id_to_str(signed.tx_id) == v["txID"]
    assert all(type(c) is Credential for c in signed.credentials)
    assert encode_signed(signed.unsigned, signed.credentials, reg).tx_bytes == data
    base = signed.unsigned.base
    base.verify(12345, id_from_str(v["context"]["xBlockchainID" if name.startswith("X") else "pBlockchainID"]))
    assert outputs_sorted(base.outs, reg)
    assert inputs_sorted_unique(base.ins)


def test_signed_tx_inside_a_block_has_no_version_prefix() -> None:
    v = vector("X.BaseTx.send_1_AVAX_with_change")
    data = hexbytes(v["signedTxHex"])
    r = Reader(b"\xaa" + data[2:] + b"\xbb")
    r.u8()
    signed = read_signed_body(r, demo_x_registry())
    assert signed.tx_bytes == data
    assert r.u8() == 0xBB


@pytest.mark.parametrize("base", ["X.BaseTx.send_1_AVAX_with_change", "P.ImportTx.from_X"])
def test_negative_vectors(base: str) -> None:
    reg = demo_x_registry() if base.startswith("X") else demo_p_registry()
    chain_id = id_from_str(vector(base)["context"]["xBlockchainID" if base.startswith("X") else "pBlockchainID"])

    def parse(variant: str) -> Any:
        return parse_signed(hexbytes(vector(f"{base}.{variant}")["signedTxHex"]), reg)

    with pytest.raises(CodecError, match=r"^trailing buffer space: read \d+ provided \d+$"):
        parse("trailing_byte")
    with pytest.raises(CodecError, match="insufficient length"):
        parse("truncated_1_byte")

    def input_lists(signed: Any) -> tuple[tuple[TransferableInput, ...], ...]:
        # AvalancheGo checks each input list on its own (ins, then importedInputs).
        return signed.unsigned.base.ins, getattr(signed.unsigned, "imported_inputs", ())

    for variant in ("duplicate_input", "unsorted_inputs"):
        assert not all(inputs_sorted_unique(ins) for ins in input_lists(parse(variant))), variant
    control = parse_signed(hexbytes(vector(f"{base}.unsorted_inputs")["control"]["signedTxHex"]), reg)
    assert all(inputs_sorted_unique(ins) for ins in input_lists(control))
    with pytest.raises(VerifyError, match="^tx has wrong network ID$"):
        parse("wrong_network_id").unsigned.base.verify(12345, chain_id)
    with pytest.raises(VerifyError, match="^tx has wrong chain ID$"):
        parse("wrong_blockchain_id").unsigned.base.verify(12345, chain_id)
    for variant in ("wrong_key", "high_s_signature", "outputs_exceed_inputs", "fee_underpaid_by_1"):
        parse(variant)  # syntactically fine: rejected later by semantic checks
