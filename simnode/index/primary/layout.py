"""The primary-network index tables: key layout and records, shared by the writers (utxos.py,
platform.py, avm.py, catomic.py) and the reader (the query/ package).

Tags start with an upper-case letter, so they never meet the EVM family's tags in the C-Chain's
space. Key parts: `cid` 32-byte chain ID, `a` 20-byte address (or EVM address on the C-Chain),
`uid` 32-byte UTXO ID, `t` u64 unix seconds, `h` u64 block height, `i` u16 position in the block,
`bi` = h i (where a tx sits: a staker's, subnet's or chain's place in history), `n` u16.

UTXOs, across chains (keys.GLOBAL), so an exporting chain and an importing chain write the rows of
one UTXO wherever either runs first (a rebuild indexes one chain after the other):

    Uo/<uid>                 -> OUT: the UTXO as created (written by the creating chain)
    Us/<uid>                 -> SPEND [chain, tx, h, t] (written by the consuming chain)
    Ut/<home><a><t><uid>     unspent, by creation time   (home: the chain it is spendable on:
    Ua/<home><a><amt8><uid>  unspent, by amount           the creator, or an export's destination)
    UT/<home><a><t><uid>     -> u64 spent t | b"": every UTXO, by creation time
    UA/<home><a><amt8><uid>  every UTXO, by amount
    Ul/<cid><a><t><uid><k>   -> [tx, h]: activity (k 0: created on cid, 1: consumed on cid)
    Ul/ rows of a consumption, and the spent forms of Ut/Ua/UT, are written by whichever of the two
    chains comes second: both derive them from OUT + SPEND, so the bytes do not depend on the order.
    Zl/<locktime t><uid>     UTXOs locked beyond their creation (platform or stakeable locktime)
    Zc/<name>                -> big: running totals (burned per chain, rewards paid, L1 balances
                                deposited and refunded)

Per chain (keys.chain_space(cid)); P, X and the C-Chain's atomic txs:

    Tb/<h>                   -> BLOCK [id, parent, t, type, [tx ids], size]  (P, X)
    Th/<block id>            -> h
    Tm/<t><h>                blocks by time
    Tx/<h><i>                -> TX record (below)
    Ti/<tx id>               -> h i
    Ta/<a><t><h><i>          txs by address (owners of outputs and of same-chain consumed UTXOs;
                             on the C-Chain also the EVM addresses of an atomic tx)
    Tk/<asset><t><h><i>      X: txs moving an asset
    Tl/<validation id><t><h><i>  P: txs about an L1 validation
    Ts/<a><t><h><i>          P: staking txs by stake and reward owner
    Xa/<asset id>            -> ASSET {name, symbol, den, nft, cap, t, tx}  (X)

Staking and the network's structure (the P-Chain's space):

    Sv/<bi>                  -> VALIDATOR (primary and permissioned subnet validations)
    Sd/<bi>                  -> DELEGATOR
    Sx/<staker tx id>        -> b"v" | b"d" + bi
    Sk/<subnet><node>        -> bi of the node's current validation of the subnet
    Vs/<st><bi>  VS/<subnet><bi>  Vn/<node><bi>  Ve/<end t><bi>  Vf/<shares u32><bi>
    Vc/<capacity u64><bi>    validator lists by status, subnet, node, end time, fee, and the
                             delegation capacity of the current primary validators
    Vr/<a><bi>               validators by reward owner
    Ds/<st><bi>  Dn/<node><bi>  Dr/<a><bi>   delegator lists by status, node, reward owner
    Rw/<a><t><uid>  Rn/<node><t><uid>  -> [staker bi, kind]: reward UTXOs by owner and node
    Nb/<bi>                  -> SUBNET (the primary network at bi 0 0)
    Ni/<subnet id>           -> bi
    Cb/<bi>                  -> BLOCKCHAIN (P, X, C at bi 0 0..2)
    Ci/<chain id>            -> bi
    Cs/<subnet><bi>          -> chain id
    Lb/<bi><n>               -> validation id: every L1 validator, by creation
    La/<bi><n>               -> validation id: the active ones
    LN/<node><bi><n>  LS/<subnet><bi><n>  -> validation id
    Lv/<validation id>       -> L1 record

Records are msgpack; OUT is a list (field order in Out), the rest are maps (fields named in the
writers). Status codes `st`: 0 pending, 1 active, 2 completed, 3 removed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..keys import GLOBAL, chain_space, table, u16, u64

PENDING, ACTIVE, COMPLETED, REMOVED = 0, 1, 2, 3
STATUS_NAMES = ("pending", "active", "completed", "removed")

# OUT.kind: what the output is (the X and C shapes print it lower-case as utxoType)
TRANSFER, MINT, STAKEABLE = "transfer", "mint", "stakeable"
# OUT.reward
REWARD_VALIDATOR, REWARD_DELEGATOR, REWARD_FEE = "VALIDATOR", "DELEGATOR", "VALIDATOR_FEE"

UO = table(GLOBAL, b"Uo")
US = table(GLOBAL, b"Us")
UT_UNSPENT = table(GLOBAL, b"Ut")
UA_UNSPENT = table(GLOBAL, b"Ua")
UT_ALL = table(GLOBAL, b"UT")
UA_ALL = table(GLOBAL, b"UA")
UL = table(GLOBAL, b"Ul")
LOCKED = table(GLOBAL, b"Zl")
COUNTERS = table(GLOBAL, b"Zc")

W_TX = 10  # h i
W_BI = 10


def bi(height: int, index: int) -> bytes:
    return u64(height) + u16(index)


def counter(name: str) -> bytes:
    return COUNTERS + name.encode()


@dataclass(frozen=True, slots=True)
class Out:
    """A UTXO as its creating chain made it."""

    uid: bytes
    created_on: bytes  # chain ID
    home: bytes  # the chain it is spent on: its creator, or an export's destination
    tx_id: bytes  # UTXO.txID (a reward UTXO's is its staker's tx)
    index: int
    height: int  # of the block that made it
    time: int  # seconds
    asset: bytes
    amount: int  # 0 for outputs without an amount (mint, NFT mint)
    addresses: tuple[bytes, ...]
    threshold: int
    locktime: int  # the owners' locktime (P: platformLocktime)
    stakeable: int  # a StakeableLockOut's locktime, else 0
    kind: str  # TRANSFER | MINT | STAKEABLE (an X NFT output: MINT or TRANSFER with group/payload)
    stake: tuple[int, int] | None  # a stake output's [start, end]
    reward: str | None  # REWARD_* of a reward UTXO
    raw: bytes  # the UTXO bytes (u16 0 | UTXO)
    group: int | None  # NFT group ID
    payload: bytes | None  # NFT payload
    tx_hash: bytes  # the tx that made it (a reward UTXO: the RewardValidatorTx)

    def record(self) -> list:
        return [self.created_on, self.home, self.tx_id, self.index, self.height, self.time, self.asset,
                self.amount, list(self.addresses), self.threshold, self.locktime, self.stakeable, self.kind,
                list(self.stake) if self.stake else None, self.reward, self.raw, self.group, self.payload,
                self.tx_hash]

    @classmethod
    def from_record(cls, uid: bytes, rec: list) -> Out:
        (created_on, home, tx_id, index, height, time, asset, amount, addresses, threshold, locktime, stakeable,
         kind, stake, reward, raw, group, payload, tx_hash) = rec
        return cls(uid, created_on, home, tx_id, index, height, time, asset, amount, tuple(addresses), threshold,
                   locktime, stakeable, kind, tuple(stake) if stake else None, reward, raw, group, payload, tx_hash)


@dataclass(frozen=True, slots=True)
class Spend:
    chain: bytes
    tx: bytes
    height: int
    time: int

    def record(self) -> list:
        return [self.chain, self.tx, self.height, self.time]

    @classmethod
    def from_record(cls, rec: list) -> Spend:
        return cls(*rec)


@dataclass(frozen=True, slots=True)
class Space:
    """One chain's primary-network table prefixes."""

    tb: bytes
    th: bytes
    tm: bytes
    tx: bytes
    ti: bytes
    ta: bytes
    tk: bytes
    tl: bytes
    ts: bytes
    xa: bytes
    sv: bytes
    sd: bytes
    sx: bytes
    sk: bytes
    vs: bytes
    vS: bytes
    vn: bytes
    ve: bytes
    vf: bytes
    vc: bytes
    vr: bytes
    ds: bytes
    dn: bytes
    dr: bytes
    rw: bytes
    rn: bytes
    nb: bytes
    ni: bytes
    cb: bytes
    ci: bytes
    cs: bytes
    lb: bytes
    la: bytes
    lN: bytes
    lS: bytes
    lv: bytes


TAGS = (b"Tb", b"Th", b"Tm", b"Tx", b"Ti", b"Ta", b"Tk", b"Tl", b"Ts", b"Xa", b"Sv", b"Sd", b"Sx", b"Sk", b"Vs",
        b"VS", b"Vn", b"Ve", b"Vf", b"Vc", b"Vr", b"Ds", b"Dn", b"Dr", b"Rw", b"Rn", b"Nb", b"Ni", b"Cb", b"Ci",
        b"Cs", b"Lb", b"La", b"LN", b"LS", b"Lv")
_SPACES: dict[bytes, Space] = {}


def space(chain_id: bytes) -> Space:
    sp = _SPACES.get(chain_id)
    if sp is None:
        base = chain_space(chain_id)
        sp = _SPACES[chain_id] = Space(*(table(base, tag) for tag in TAGS))
    return sp
