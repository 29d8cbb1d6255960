"""The EVM index tables: key layout and value records, shared by the writer (rows.py) and the
reader (query.py).

Per chain, under keys.chain_space(chain ID); `num` u64 block, `idx` u32 tx index in the block,
`log` u32 log index in the block, `sub` u16 item of a TransferBatch, `fr` u16 frame index in the
tx's call frames, `st` u8 tx status (0 failed, 1 success), `id` 32-byte token ID:

    hd                          -> num u64: the last block indexed (the driver's marker)
    rp                          -> [the chain's key prefix, coreth headers?]: where its block rows
                                   are (chain_rows.py reads them)
    bk/<num>                    -> [fees spent, cumulative txs]: the rest of the BLOCK record is the
                                   chain's block row's (its header, time, tx count)
    tx/<num><idx>               -> b"": the TX record is the chain's block row's (raw tx, sender,
                                   receipt)
    (tx and block hashes are looked up in the chain's own t/ and h/ rows)
    ts/<st><num><idx>           txs by status
    na/<addr><num><idx>         native txs by address: from, to (or the contract created)
    ta/<addr><num><idx>         the other txs of an address: it is an end of a token transfer or of
                                a listed internal tx, not the tx's from or to; its txs are its na
                                and ta rows together (before issue 27 ta held the na rows too:
                                the union is the same)
    tr/<num><idx><log><sub>     -> TRANSFER record (ERC-20 Transfer, ERC-721 Transfer,
                                   ERC-1155 TransferSingle/TransferBatch items)
    e2|e7|e1/<addr><num><idx><log><sub>   ERC-20 | ERC-721 | ERC-1155 transfers by from and to
    tk/<token><num><idx><log><sub>        every transfer of a token contract
    tf/<num><idx>               -> [FRAME, ...]: the tx's recorded call frames (txs that ran code)
    ia/<addr><num><idx><fr>     -> FRAME: internal txs by from and to (depth >= 1: CALL/CALLCODE
                                   moving value, CREATE/CREATE2)
    cc/<contract>               -> CREATION record (creations that took effect, top-level or not)
    cd/<deployer><num><idx><fr> -> contract: creations by their creator and by the tx's sender
    tm/<token>                  -> TOKEN record (kind and metadata, read once)
    nt/<token><id>              -> NFT record (ERC-721/1155 token IDs seen, with their URI)
    c2/<owner><token>           -> sbig balance: current ERC-20 balances (non-zero only)
    h2/<owner><token><num>      -> sbig balance after block num (history)
    c1/<owner><token><id>       -> sbig balance: current ERC-1155 balances (non-zero only)
    h1/<owner><token><id><num>  -> sbig balance after block num (history)
    o7/<token><id>              -> owner: current ERC-721 owners
    n7/<owner><token><id>       current ERC-721 holdings

Across chains, under keys.GLOBAL (`ms` u64 block time in milliseconds, `cid` 32-byte chain ID):

    gb/<ms><cid><num>           blocks of every chain by time
    gt/<ms><cid><num><idx>      txs of every chain by time
    gs/<st><ms><cid><num><idx>  the same by status

Before this layout, bk held the whole BLOCK record, tx the whole TX record, and th/<tx hash> ->
num idx, bh/<block hash> -> num copied the chain's hash lookups: such rows are still read (the
records by their shape); `simnode reindex` rewrites them in this layout.

The chains an address has activity on are those whose na or ta table has a row for it (a seek
or two per chain), so no table of their own.

Records are msgpack lists; amounts are keys.big bytes, balances keys.sbig bytes (BLOCK and TX as
chain_rows.py builds them from the chain's rows):

    BLOCK     [hash, parent hash, ms, tx count, gas used, gas limit, base fee, block gas cost,
               min delay excess | None, fees spent, cumulative txs]
    TX        [hash, block hash, ms, from, to (b"" creating), contract created (b"" none), value, nonce,
               gas limit, gas used, effective gas price, status, type, max fee | None, tip | None, input]
    TRANSFER  [standard (20 | 721 | 1155), token, from, to, amount, token ID (b"" for ERC-20), tx hash]
    FRAME     the recorder's [kind, from, to, value, gas, gas used, depth, failed] + [reverted]: the
              frame's effects were undone (it failed, or one around it did)
    CREATION  [num, idx, fr (0: the tx itself), tx hash, tx sender, creator (CREATE's caller), kind]
    TOKEN     [standard, name | None, symbol | None, decimals | None (ERC-20 only), num read at]
    NFT       [tokenURI / uri | None, num first seen]
"""

from __future__ import annotations

from dataclasses import dataclass

from ..keys import GLOBAL, chain_space, marker, table

# call frame kinds, in the order vms/evm/tracing/block_frames.py records them (FRAME.kind is an index)
FRAME_KINDS = ("CALL", "CALLCODE", "DELEGATECALL", "STATICCALL", "CREATE", "CREATE2", "SELFDESTRUCT")
F_CREATE, F_CREATE2 = FRAME_KINDS.index("CREATE"), FRAME_KINDS.index("CREATE2")


def is_listed_internal(kind: str, moves_value: bool, depth: int) -> bool:
    """The internal txs the Data API lists, as its document states the rule: below the tx itself,
    CALL/CALLCODE moving value, and every CREATE/CREATE2. A SELFDESTRUCT is none of them (its
    InternalTransactionOpCall enum has no such type), so its frame stays in the tx's frames only."""
    return depth > 0 and (kind in ("CREATE", "CREATE2") or (moves_value and kind in ("CALL", "CALLCODE")))


# token standards as stored (TRANSFER.standard, TOKEN.standard)
ERC20, ERC721, ERC1155 = 20, 721, 1155
STANDARD_NAMES = {ERC20: "ERC-20", ERC721: "ERC-721", ERC1155: "ERC-1155"}

# widths of the key parts after a table's fixed prefix
W_TX = 12  # num idx
W_TRANSFER = 18  # num idx log sub
W_FRAME = 14  # num idx fr

TAGS = (b"hd", b"bk", b"bh", b"tx", b"th", b"ts", b"ta", b"na", b"tr", b"e2", b"e7", b"e1", b"tk", b"tf", b"ia",
        b"cc", b"cd", b"tm", b"nt", b"c2", b"h2", b"c1", b"h1", b"o7", b"n7", b"rp")
GLOBAL_BLOCKS = table(GLOBAL, b"gb")
GLOBAL_TXS = table(GLOBAL, b"gt")
GLOBAL_TX_STATUS = table(GLOBAL, b"gs")


@dataclass(frozen=True, slots=True)
class Space:
    """One chain's table prefixes."""

    chain_id: bytes
    marker: bytes
    bk: bytes
    bh: bytes
    tx: bytes
    th: bytes
    ts: bytes
    ta: bytes
    na: bytes
    tr: bytes
    e2: bytes
    e7: bytes
    e1: bytes
    tk: bytes
    tf: bytes
    ia: bytes
    cc: bytes
    cd: bytes
    tm: bytes
    nt: bytes
    c2: bytes
    h2: bytes
    c1: bytes
    h1: bytes
    o7: bytes
    n7: bytes
    rp: bytes


_SPACES: dict[bytes, Space] = {}


def space(chain_id: bytes) -> Space:
    sp = _SPACES.get(chain_id)
    if sp is None:
        base = chain_space(chain_id)
        prefixes = [marker(chain_id)] + [table(base, tag) for tag in TAGS[1:-1]] + [base + b"rp"]
        sp = _SPACES[chain_id] = Space(chain_id, *prefixes)
    return sp
