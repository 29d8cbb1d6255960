"""The X-Chain's genesis: the AVAX CreateAssetTx and its initial outputs (avalanchego
``genesis/genesis.go`` FromConfig and ``vms/avm/genesis.go``)."""

import hashlib

from simnode.codec.packer import Writer
from simnode.codec.registry import TypeRegistry
from simnode.codec.secp256k1fx import TransferOutput

from .base_tx import single_owner, write_empty_base_tx
from .config import GenesisConfig

AVAX_ALIAS = "AVAX"
AVAX_NAME = "Avalanche"
AVAX_SYMBOL = "AVAX"
AVAX_DENOMINATION = 9

X_CREATE_ASSET_TX_TYPE_ID = 1  # in the X genesis codec


def build_x_genesis(
    config: GenesisConfig, x_reg: TypeRegistry
) -> tuple[bytes, bytes, bytes, tuple[TransferOutput, ...]]:
    """→ (X genesis bytes, CreateAssetTx bytes, AVAX asset ID, the initial outputs in index order)."""
    # FromConfig: holders sorted by (initialAmount, avaxAddr); the memo concatenates their ethAddrs.
    x_allocations = sorted(
        (a for a in config.allocations if a.initial_amount > 0), key=lambda a: (a.initial_amount, a.avax_addr)
    )
    memo = b"".join(a.eth_addr for a in x_allocations)

    def typed_bytes(out: TransferOutput) -> bytes:
        w = Writer()
        x_reg.encode_typed(w, out)
        return w.getvalue()

    outs = tuple(
        sorted((TransferOutput(a.initial_amount, single_owner(a.avax_addr)) for a in x_allocations), key=typed_bytes)
    )

    body = Writer()
    write_empty_base_tx(body, config.network_id, memo)
    body.str_u16(AVAX_NAME)
    body.str_u16(AVAX_SYMBOL)
    body.u8(AVAX_DENOMINATION)
    if outs:
        body.u32(1)  # one InitialState: secp256k1fx (fxIndex 0) with the fixed-cap holders
        body.u32(0)
        body.u32(len(outs))
        for out in outs:
            x_reg.encode_typed(body, out)
    else:
        body.u32(0)
    fields = body.getvalue()

    asset_tx = Writer()
    asset_tx.codec_version()
    asset_tx.u32(X_CREATE_ASSET_TX_TYPE_ID)
    asset_tx.raw(fields)
    asset_tx.u32(0)  # no credentials
    asset_tx_bytes = asset_tx.getvalue()

    genesis = Writer()
    genesis.codec_version()
    genesis.u32(1)  # one GenesisAsset: alias, then the CreateAssetTx fields without a type ID
    genesis.str_u16(AVAX_ALIAS)
    genesis.raw(fields)
    return genesis.getvalue(), asset_tx_bytes, hashlib.sha256(asset_tx_bytes).digest(), outs
