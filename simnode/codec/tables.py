"""The base type-ID tables of the three primary-network chains (node-api.md §4.1).

Each factory returns a fresh registry holding the fx types; the chain's txs.py registers its own tx
(and block) types on top, e.g.::

    X_REGISTRY = new_x_registry()
    X_REGISTRY.register(0, BaseTx)
    ...

Secp TransferInput/TransferOutput/Credential have IDs 5/7/9 everywhere, so an exported UTXO decodes
the same way on every chain.
"""

from simnode.codec.nftfx import NftCredential, NftMintOperation, NftMintOutput, NftTransferOperation, NftTransferOutput
from simnode.codec.propertyfx import (
    PropertyBurnOperation,
    PropertyCredential,
    PropertyMintOperation,
    PropertyMintOutput,
    PropertyOwnedOutput,
)
from simnode.codec.registry import TypeRegistry
from simnode.codec.secp256k1fx import (
    Credential,
    Input,
    MintOperation,
    MintOutput,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from simnode.codec.stakeable import StakeableLockIn, StakeableLockOut

SECP_TRANSFER_INPUT_ID = 5
SECP_MINT_OUTPUT_ID = 6
SECP_TRANSFER_OUTPUT_ID = 7
SECP_MINT_OPERATION_ID = 8
SECP_CREDENTIAL_ID = 9
SECP_INPUT_ID = 10  # P and C only (on X, 10 is the nft MintOutput)
SECP_OUTPUT_OWNERS_ID = 11  # P and C only
STAKEABLE_LOCK_IN_ID = 21
STAKEABLE_LOCK_OUT_ID = 22


def _with_shared_fx(name: str) -> TypeRegistry:
    reg = TypeRegistry(name)
    reg.register(SECP_TRANSFER_INPUT_ID, TransferInput)
    reg.register(SECP_TRANSFER_OUTPUT_ID, TransferOutput)
    reg.register(SECP_CREDENTIAL_ID, Credential)
    return reg


def new_x_registry() -> TypeRegistry:
    """X-Chain (avm) fx types 5–19; the chain adds txs 0–4 and StandardBlock 20."""
    reg = _with_shared_fx("X")
    reg.register(SECP_MINT_OUTPUT_ID, MintOutput)
    reg.register(SECP_MINT_OPERATION_ID, MintOperation)
    reg.register(10, NftMintOutput)
    reg.register(11, NftTransferOutput)
    reg.register(12, NftMintOperation)
    reg.register(13, NftTransferOperation)
    reg.register(14, NftCredential)
    reg.register(15, PropertyMintOutput)
    reg.register(16, PropertyOwnedOutput)
    reg.register(17, PropertyMintOperation)
    reg.register(18, PropertyBurnOperation)
    reg.register(19, PropertyCredential)
    return reg


def new_p_registry() -> TypeRegistry:
    """P-Chain fx types 5, 7, 9, 10, 11 and stakeable locks 21, 22; the chain adds its txs and blocks."""
    reg = _with_shared_fx("P")
    reg.register(SECP_INPUT_ID, Input)
    reg.register(SECP_OUTPUT_OWNERS_ID, OutputOwners)
    reg.register(STAKEABLE_LOCK_IN_ID, StakeableLockIn)
    reg.register(STAKEABLE_LOCK_OUT_ID, StakeableLockOut)
    return reg


def new_c_registry() -> TypeRegistry:
    """C-Chain atomic fx types 5, 7, 9, 10, 11; the chain adds UnsignedImportTx 0 and UnsignedExportTx 1."""
    reg = _with_shared_fx("C")
    reg.register(SECP_INPUT_ID, Input)
    reg.register(SECP_OUTPUT_OWNERS_ID, OutputOwners)
    return reg
