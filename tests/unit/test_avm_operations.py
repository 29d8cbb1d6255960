"""X-Chain OperationTx (type 2): secp256k1fx mint of a variable-cap asset, nftfx mint and transfer,
propertyfx mint and burn; each accepted with the UTXOs and balances it should leave, and each bad
operation rejected with AvalancheGo's text and no state change."""

from __future__ import annotations

import pytest

from simnode.codec import UTXO, Input, MintOperation, MintOutput, TransferOutput
from simnode.codec.nftfx import NftMintOperation, NftMintOutput, NftTransferOperation, NftTransferOutput
from simnode.codec.propertyfx import (
    PropertyBurnOperation,
    PropertyMintOperation,
    PropertyMintOutput,
    PropertyOwnedOutput,
)
from simnode.formats.address import format_address
from simnode.formats.ids import id_to_str, short_id_to_str
from simnode.vms.avm.wallet import XContext, XWallet
from simnode.vms.avm.service import AVMService
from simnode.vms.avm.execute import execute
from simnode.vms.avm.txs import NFT_FX, PROPERTY_FX, SECP_FX, InitialState, Operation, Tx, TxError, sign_tx
from simnode.vms.avm.vm import XChainVM

from .avm_support import ADDR1, ADDR2, AVAX, EWOQ, EWOQ_KEY, FEE, K1, K2, dump_state, make_vm, owners


def _wallet(vm: XChainVM) -> XWallet:
    """ewoq's wallet over its current UTXOs: pays every fee below."""
    st = vm.state()
    utxos = tuple(u for u in (st.get_utxo(uid) for uid in st.utxo_ids_of(EWOQ)) if u is not None)
    return XWallet(XContext.of_vm(vm), (EWOQ_KEY,), utxos, vm.clock.now())


def _accept(vm: XChainVM, tx: Tx) -> None:
    assert vm.issue_tx(tx.bytes) == tx.id
    assert vm.build_block() is not None
    assert vm.state().get_tx_bytes(tx.id) == tx.bytes


def _rejects(vm: XChainVM, tx: Tx, text: str) -> None:
    before = dump_state(vm)
    with pytest.raises(TxError) as err:
        vm.issue_tx(tx.bytes)
    assert str(err.value) == text
    assert dump_state(vm) == before
    assert len(vm.mempool) == 0


def _created(tx: Tx) -> list[UTXO]:
    """The UTXOs a CreateAssetTx or OperationTx makes after its base outputs, in order."""
    return [u for u in execute(tx).produced if u.output_index >= len(tx.unsigned.base.outs)]


def _op(asset: bytes, utxo: UTXO, fx_op) -> Operation:
    return Operation(asset, ((utxo.tx_id, utxo.output_index),), fx_op)


def _x(addr: bytes) -> str:
    return format_address("X", "local", addr)


@pytest.fixture()
def vm() -> XChainVM:
    return make_vm()


# ------------------------------------------------------------------------------------ secp256k1fx


def _variable_cap_asset(vm: XChainVM) -> tuple[bytes, UTXO]:
    """GOLD: 1,000 to ewoq and a mint right for ADDR1; returns (asset ID, the mint UTXO)."""
    states = [InitialState(SECP_FX, (MintOutput(owners(ADDR1)), TransferOutput(1000, owners(EWOQ))))]
    tx = _wallet(vm).create_asset_tx("Gold", "GOLD", 2, states)
    _accept(vm, tx)
    mint = next(u for u in _created(tx) if isinstance(u.out, MintOutput))
    return tx.id, mint


def test_secp_mint_more_of_a_variable_cap_asset(vm):
    svc = AVMService(vm)
    asset, mint = _variable_cap_asset(vm)
    assert svc.get_asset_description({"assetID": id_to_str(asset)}) == {
        "assetID": id_to_str(asset), "name": "Gold", "symbol": "GOLD", "denomination": "2"}
    avax_before = int(svc.get_balance({"address": _x(EWOQ), "assetID": "AVAX"})["balance"])

    op = _op(asset, mint, MintOperation(Input((0,)), MintOutput(owners(ADDR1)), TransferOutput(500, owners(ADDR2))))
    tx = _wallet(vm).operation_tx([(op, [K1])])
    _accept(vm, tx)

    st = vm.state()
    assert st.get_utxo(mint.id) is None  # the mint right is spent ...
    new_mint, minted = _created(tx)  # ... and made again, next to the minted coins
    assert st.get_utxo(new_mint.id) == UTXO(tx.id, len(tx.unsigned.base.outs), asset, MintOutput(owners(ADDR1)))
    assert st.get_utxo(minted.id) == UTXO(tx.id, len(tx.unsigned.base.outs) + 1, asset,
                                          TransferOutput(500, owners(ADDR2)))
    got = svc.get_balance({"address": _x(ADDR2), "assetID": id_to_str(asset)})
    assert got == {"balance": "500", "utxoIDs": [{"txID": id_to_str(tx.id), "outputIndex": minted.output_index}]}
    # A mint right is no balance; ewoq paid the fee in AVAX and still holds its 1,000 GOLD.
    assert svc.get_balance({"address": _x(ADDR1), "assetID": id_to_str(asset)})["balance"] == "0"
    assert svc.get_all_balances({"address": _x(EWOQ)})["balances"] == sorted(
        [{"asset": "AVAX", "balance": str(avax_before - FEE)}, {"asset": id_to_str(asset), "balance": "1000"}],
        key=lambda b: AVAX if b["asset"] == "AVAX" else asset)
    assert svc.get_all_balances({"address": _x(ADDR2)})["balances"] == [{"asset": id_to_str(asset), "balance": "500"}]

    # The new mint right mints again.
    again = _op(asset, new_mint, MintOperation(Input((0,)), MintOutput(owners(ADDR1)), TransferOutput(7, owners(ADDR2))))
    _accept(vm, _wallet(vm).operation_tx([(again, [K1])]))
    assert svc.get_balance({"address": _x(ADDR2), "assetID": id_to_str(asset)})["balance"] == "507"


def test_secp_mint_rejections(vm):
    asset, mint = _variable_cap_asset(vm)
    wallet = _wallet(vm)

    def mint_op(to_amount: int = 5, minter=owners(ADDR1),  # noqa: B008 - an immutable owner, made once
                asset_id: bytes = asset, utxo: UTXO = mint) -> Operation:
        return _op(asset_id, utxo, MintOperation(Input((0,)), MintOutput(minter), TransferOutput(to_amount, owners(ADDR2))))

    # Signed by someone who is not the minter.
    _rejects(vm, wallet.operation_tx([(mint_op(), [K2])]),
             f"wrong signature: expected signature from {short_id_to_str(ADDR1)} but got from {short_id_to_str(ADDR2)}")
    # The mint right must be handed on unchanged.
    _rejects(vm, wallet.operation_tx([(mint_op(minter=owners(ADDR2)), [K1])]),
             "wrong mint output created from the operation")
    # An operation naming another asset than its UTXO's.
    _rejects(vm, wallet.operation_tx([(mint_op(asset_id=AVAX), [K1])]),
             "asset IDs in the input don't match the utxo")
    # An operation on a plain transfer UTXO of the right asset.
    coins = next(u for u in wallet.utxos if u.asset_id == asset)
    _rejects(vm, wallet.operation_tx([(mint_op(utxo=coins), [EWOQ_KEY])]), "wrong utxo type")
    # The same mint UTXO twice in one tx.
    _rejects(vm, wallet.operation_tx([(mint_op(5), [K1]), (mint_op(6), [K1])]),
             "inputs attempt to double spend an input")
    # Spent once, then again.
    _accept(vm, wallet.operation_tx([(mint_op(5), [K1])]))
    _rejects(vm, _wallet(vm).operation_tx([(mint_op(6), [K1])]), "not found")


def test_operation_on_an_asset_without_that_fx(vm):
    asset, mint = _variable_cap_asset(vm)
    nft_op = _op(asset, mint, NftMintOperation(Input((0,)), 0, b"x", (owners(ADDR2),)))
    _rejects(vm, _wallet(vm).operation_tx([(nft_op, [K1])]), "incompatible feature extension")


# ------------------------------------------------------------------------------------ nftfx


def test_nft_mint_and_transfer(vm):
    states = [InitialState(NFT_FX, (NftMintOutput(0, owners(ADDR1)), NftMintOutput(1, owners(ADDR1))))]
    family = _wallet(vm).create_asset_tx("Cats", "CAT", 0, states)
    _accept(vm, family)
    mint0 = next(u for u in _created(family) if u.out.group_id == 0)

    mint = _op(family.id, mint0, NftMintOperation(Input((0,)), 0, b"tabby", (owners(ADDR2), owners(EWOQ))))
    tx = _wallet(vm).operation_tx([(mint, [K1])])
    _accept(vm, tx)
    st = vm.state()
    assert st.get_utxo(mint0.id) is None  # an nftfx mint consumes its mint UTXO
    made = _created(tx)
    assert [u.out for u in made] == [NftTransferOutput(0, b"tabby", owners(ADDR2)),
                                     NftTransferOutput(0, b"tabby", owners(EWOQ))]
    assert all(st.get_utxo(u.id) == u for u in made)
    # NFTs are no fungible balance.
    assert AVMService(vm).get_all_balances({"address": _x(ADDR2)}) == {"balances": []}

    nft = made[0]
    give = _op(family.id, nft, NftTransferOperation(Input((0,)), NftTransferOutput(0, b"tabby", owners(ADDR1))))
    wallet = _wallet(vm)
    # Only the owner may transfer it, and group and payload must stay.
    _rejects(vm, wallet.operation_tx([(give, [K1])]),
             f"wrong signature: expected signature from {short_id_to_str(ADDR2)} but got from {short_id_to_str(ADDR1)}")
    other_group = _op(family.id, nft, NftTransferOperation(Input((0,)), NftTransferOutput(1, b"tabby", owners(ADDR1))))
    _rejects(vm, wallet.operation_tx([(other_group, [K2])]), "wrong unique ID provided")
    other_bytes = _op(family.id, nft, NftTransferOperation(Input((0,)), NftTransferOutput(0, b"siamese", owners(ADDR1))))
    _rejects(vm, wallet.operation_tx([(other_bytes, [K2])]), "wrong bytes provided")

    tx = wallet.operation_tx([(give, [K2])])
    _accept(vm, tx)
    assert vm.state().get_utxo(nft.id) is None
    (moved,) = _created(tx)
    assert vm.state().get_utxo(moved.id) == UTXO(tx.id, moved.output_index, family.id,
                                                 NftTransferOutput(0, b"tabby", owners(ADDR1)))


def test_nft_mint_with_a_wrong_group_or_minter(vm):
    family = _wallet(vm).create_asset_tx("Dogs", "DOG", 0, [InitialState(NFT_FX, (NftMintOutput(3, owners(ADDR1)),))])
    _accept(vm, family)
    (mint_utxo,) = _created(family)
    wallet = _wallet(vm)
    wrong_group = _op(family.id, mint_utxo, NftMintOperation(Input((0,)), 4, b"", (owners(ADDR2),)))
    _rejects(vm, wallet.operation_tx([(wrong_group, [K1])]), "wrong unique ID provided")
    by_stranger = _op(family.id, mint_utxo, NftMintOperation(Input((0,)), 3, b"", (owners(ADDR2),)))
    _rejects(vm, wallet.operation_tx([(by_stranger, [K2])]),
             f"wrong signature: expected signature from {short_id_to_str(ADDR1)} but got from {short_id_to_str(ADDR2)}")


# ------------------------------------------------------------------------------------ propertyfx


def test_property_mint_and_burn(vm):
    deeds = _wallet(vm).create_asset_tx("Deeds", "DEED", 0, [InitialState(PROPERTY_FX, (PropertyMintOutput(owners(ADDR1)),))])
    _accept(vm, deeds)
    (mint_utxo,) = _created(deeds)

    wallet = _wallet(vm)
    bad_right = _op(deeds.id, mint_utxo, PropertyMintOperation(Input((0,)), PropertyMintOutput(owners(ADDR2)),
                                                                 PropertyOwnedOutput(owners(ADDR2))))
    _rejects(vm, wallet.operation_tx([(bad_right, [K1])]), "wrong mint output provided")
    mint = _op(deeds.id, mint_utxo, PropertyMintOperation(Input((0,)), PropertyMintOutput(owners(ADDR1)),
                                                            PropertyOwnedOutput(owners(ADDR2))))
    _rejects(vm, wallet.operation_tx([(mint, [K2])]),
             f"wrong signature: expected signature from {short_id_to_str(ADDR1)} but got from {short_id_to_str(ADDR2)}")
    tx = wallet.operation_tx([(mint, [K1])])
    _accept(vm, tx)
    st = vm.state()
    assert st.get_utxo(mint_utxo.id) is None
    right, owned = _created(tx)
    assert (right.out, owned.out) == (PropertyMintOutput(owners(ADDR1)), PropertyOwnedOutput(owners(ADDR2)))
    assert st.get_utxo(right.id) == right and st.get_utxo(owned.id) == owned

    burn = _op(deeds.id, owned, PropertyBurnOperation(Input((0,))))
    wallet = _wallet(vm)
    _rejects(vm, wallet.operation_tx([(burn, [K1])]),
             f"wrong signature: expected signature from {short_id_to_str(ADDR2)} but got from {short_id_to_str(ADDR1)}")
    tx = wallet.operation_tx([(burn, [K2])])
    _accept(vm, tx)
    assert vm.state().get_utxo(owned.id) is None
    assert _created(tx) == []
    # A burned property is gone for good.
    _rejects(vm, _wallet(vm).operation_tx([(burn, [K2])]), "not found")


# ------------------------------------------------------------------------------------ fx checks


def test_utxo_count_and_credential_type_per_fx(vm):
    """secp256k1fx checks the credential type first and says "utxos"; nftfx/propertyfx count first, "UTXOs"."""
    asset, mint = _variable_cap_asset(vm)
    family = _wallet(vm).create_asset_tx("Owls", "OWL", 0, [InitialState(NFT_FX, (NftMintOutput(0, owners(ADDR1)),
                                                                                   NftMintOutput(1, owners(ADDR1))))])
    _accept(vm, family)
    nft_mints = _created(family)
    wallet = _wallet(vm)

    secp_op = MintOperation(Input((0,)), MintOutput(owners(ADDR1)), TransferOutput(5, owners(ADDR2)))
    no_utxo = Operation(asset, (), secp_op)
    _rejects(vm, wallet.operation_tx([(no_utxo, [K1])]), "wrong number of utxos for the operation")
    two = Operation(family.id, tuple(sorted((u.tx_id, u.output_index) for u in nft_mints)),
                    NftMintOperation(Input((0,)), 0, b"", (owners(ADDR2),)))
    _rejects(vm, wallet.operation_tx([(two, [K1])]), "wrong number of UTXOs for the operation")

    # An nftfx operation with a secp256k1fx credential.
    nft_op = _op(family.id, nft_mints[0], NftMintOperation(Input((0,)), 0, b"", (owners(ADDR2),)))
    tx = wallet.operation_tx([(nft_op, [K1])])
    secp_only = sign_tx(tx.unsigned, [[EWOQ_KEY]] * len(tx.unsigned.base.ins) + [[K1]])
    _rejects(vm, secp_only, "wrong credential type")
    _accept(vm, tx)
