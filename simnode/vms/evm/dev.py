"""Developer controls (Anvil/Hardhat/Ganache names): mining, time travel, snapshots, state edits,
impersonation, dump/load of state."""

from __future__ import annotations

import gzip
import json
from typing import TYPE_CHECKING, Any

from ...rpc.jsonrpc import EthService, InvalidParams
from .vmerrors import ChainError
from .rpcjson import hb, hx, parse_address, parse_data, parse_hash, parse_quantity

if TYPE_CHECKING:
    from .service import EthAPI

BLANK_ROOT = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")


def _num(v: Any, arg: int = 0) -> int:
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str) and not v.startswith("0x") and v.isdigit():
        return int(v)
    return parse_quantity(v, arg)


def dump_state(api: EthAPI) -> dict:
    """Every account and storage slot of the latest state, keyed by trie key (keccak of the
    address / slot), with code; loadable by anvil_loadState to rebuild the identical root."""
    from trie import HexaryTrie
    from trie.iter import NodeIterator

    from .rules import account_from_rlp

    chain = api.chain
    root = chain.state_root
    accounts: dict[str, Any] = {}
    for key, value in NodeIterator(HexaryTrie(chain.db, root)).items():
        acct = account_from_rlp(value)
        storage = {}
        if acct.storage_root != BLANK_ROOT:
            for sk, sv in NodeIterator(HexaryTrie(chain.db, acct.storage_root)).items():
                storage[hb(sk)] = hb(sv)
        code = chain.db[acct.code_hash] if acct.code_hash != bytes.fromhex(
            "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470") else b""
        accounts[hb(key)] = {"nonce": acct.nonce, "balance": hx(acct.balance), "code": hb(code), "storage": storage}
    return {"version": 1, "chainId": chain.evm_chain_id, "stateRoot": hb(root), "block": chain.head.number,
            "accounts": accounts}


def load_state(api: EthAPI, doc: dict) -> None:
    from eth.rlp.accounts import Account
    from trie import HexaryTrie

    from .rules import account_rlp

    chain = api.chain
    state_trie = HexaryTrie(chain.db, BLANK_ROOT)
    for key, a in doc["accounts"].items():
        st = HexaryTrie(chain.db, BLANK_ROOT)
        for sk, sv in a.get("storage", {}).items():
            st[parse_data(sk)] = parse_data(sv)
        code = parse_data(a.get("code", "0x"))
        from ...crypto.hashing import keccak256
        code_hash = keccak256(code)
        if code:
            chain.db[code_hash] = code
        acct = Account(nonce=int(a["nonce"]), balance=int(a["balance"], 16), storage_root=st.root_hash,
                       code_hash=code_hash)
        state_trie[parse_data(key)] = account_rlp(acct, chain.account_db_class.account_tail)
    batch = chain.store.batch()
    chain.kv.flush_into(batch)
    batch.put(chain.prefix + b"root", state_trie.root_hash)
    batch.commit()
    chain.state_root = state_trie.root_hash
    chain._view = None


def register_dev(svc: EthService, api: EthAPI) -> None:
    chain = api.chain
    reg = svc.register

    def alias(names: tuple[str, ...], fn: Any, lo: int = 0, hi: int | None = None) -> None:
        for n in names:
            reg(n, fn, lo, hi)

    # -------------------------------------------------------------- mining
    def evm_mine(arg: Any = None) -> str:
        if isinstance(arg, dict):
            ts = arg.get("timestamp")
            blocks = _num(arg.get("blocks", 1))
        else:
            ts, blocks = arg, 1
        for i in range(blocks):
            if ts is not None and i == 0:
                chain.next_timestamp = _num(ts)
                if chain.next_timestamp * 1000 > chain.clock.now_ms():
                    chain.clock.set_ms(chain.next_timestamp * 1000)
            chain.build_block()
        return "0x0"
    alias(("evm_mine",), evm_mine, 0, 1)

    def anvil_mine(count: Any = None, interval: Any = None) -> None:
        n = 1 if count is None else _num(count)
        step = None if interval is None else _num(interval, 1)
        if n <= 0:
            return
        if chain.pool.has_executable(chain.nonce_of):
            ts = None if step is None else chain.head.ms + step * 1000
            chain.build_block(ts)
            n -= 1
        if n:
            chain.mine_empty(n, step)
        return
    alias(("anvil_mine", "hardhat_mine"), anvil_mine, 0, 2)

    def set_automine(on: Any) -> None:
        chain.set_automine(bool(on))
    alias(("evm_setAutomine", "anvil_setAutomine"), set_automine, 1)
    alias(("anvil_getAutomine", "hardhat_getAutomine"), lambda: chain.automine)

    def set_interval(ms: Any) -> None:
        v = _num(ms)
        if v <= 0:
            chain.set_interval(0)
            chain.set_automine(False)
        else:
            chain.set_interval(v / 1000)
    reg("evm_setIntervalMining", set_interval, 1)

    def anvil_set_interval(seconds: Any) -> None:
        v = _num(seconds)
        if v > 0:
            chain.set_interval(v)
        else:
            chain.set_interval(0)
            chain.set_automine(False)
    reg("anvil_setIntervalMining", anvil_set_interval, 1)
    reg("anvil_getIntervalMining", lambda: chain.interval_ms // 1000)

    # -------------------------------------------------------------- time
    def increase_time(secs: Any) -> int:
        s = _num(secs)
        if s < 0:
            raise ChainError("cannot move time backwards")
        chain.clock.advance(s)
        chain.time_offset += s
        return chain.time_offset
    alias(("evm_increaseTime", "anvil_increaseTime"), increase_time, 1)

    def set_next_ts(ts: Any) -> None:
        t = _num(ts)
        if t * 1000 < chain.head.ms:
            raise ChainError(
                f"Timestamp error: {t} is lower than previous block's timestamp {chain.head.header.timestamp}")
        chain.next_timestamp = t
        if t * 1000 > chain.clock.now_ms():
            chain.clock.set_ms(t * 1000)
    alias(("evm_setNextBlockTimestamp", "anvil_setNextBlockTimestamp"), set_next_ts, 1)

    def set_time(ts: Any) -> int:
        t = _num(ts)
        if t * 1000 > chain.clock.now_ms():
            chain.clock.set_ms(t * 1000)
        chain.next_timestamp = max(t, chain.head.header.timestamp)
        return t
    alias(("evm_setTime", "anvil_setTime"), set_time, 1)

    # -------------------------------------------------------------- snapshots
    alias(("evm_snapshot", "anvil_snapshot"), lambda: hx(chain.snapshot()))

    def revert(sid: Any) -> bool:
        return chain.revert(_num(sid))
    alias(("evm_revert", "anvil_revert"), revert, 1)

    # -------------------------------------------------------------- state edits
    def set_balance(addr: Any, value: Any) -> None:
        a, v = parse_address(addr), _num(value, 1)
        chain.edit_state(lambda st: st.set_balance(a, v))
    alias(("anvil_setBalance", "hardhat_setBalance", "tenderly_setBalance"), set_balance, 2)

    def add_balance(addr: Any, value: Any) -> None:
        a, v = parse_address(addr), _num(value, 1)
        chain.edit_state(lambda st: st.set_balance(a, st.get_balance(a) + v))
    alias(("anvil_addBalance", "hardhat_addBalance", "tenderly_addBalance"), add_balance, 2)

    def set_code(addr: Any, code: Any) -> None:
        a, c = parse_address(addr), parse_data(code, 1)
        chain.edit_state(lambda st: st.set_code(a, c))
    alias(("anvil_setCode", "hardhat_setCode"), set_code, 2)

    def set_nonce(addr: Any, nonce: Any) -> None:
        a, n = parse_address(addr), _num(nonce, 1)
        chain.edit_state(lambda st: st.set_nonce(a, n))
        chain.pool.drop_stale(a, n)
    alias(("anvil_setNonce", "hardhat_setNonce", "evm_setAccountNonce"), set_nonce, 2)

    def set_storage(addr: Any, slot: Any, value: Any) -> bool:
        a = parse_address(addr)
        s = int(slot, 16) if isinstance(slot, str) else int(slot)
        v = int.from_bytes(parse_data(value, 2), "big") if isinstance(value, str) else int(value)
        chain.edit_state(lambda st: st.set_storage(a, s, v))
        return True
    alias(("anvil_setStorageAt", "hardhat_setStorageAt"), set_storage, 3)

    # -------------------------------------------------------------- impersonation
    def impersonate(addr: Any) -> None:
        chain.impersonated.add(parse_address(addr))
    alias(("anvil_impersonateAccount", "hardhat_impersonateAccount"), impersonate, 1)

    def stop_impersonating(addr: Any) -> None:
        chain.impersonated.discard(parse_address(addr))
    alias(("anvil_stopImpersonatingAccount", "hardhat_stopImpersonatingAccount"), stop_impersonating, 1)

    def auto_impersonate(on: Any) -> None:
        chain.auto_impersonate = bool(on)
    alias(("anvil_autoImpersonateAccount", "hardhat_autoImpersonateAccount"), auto_impersonate, 1)

    # -------------------------------------------------------------- pool
    def drop_tx(h: Any) -> Any:
        p = chain.pool.remove(parse_hash(h))
        return hb(p.hash) if p else None
    alias(("anvil_dropTransaction", "hardhat_dropTransaction"), drop_tx, 1)

    def drop_all() -> None:
        chain.pool.clear()
    alias(("anvil_dropAllTransactions", "hardhat_dropAllTransactions"), drop_all)

    # -------------------------------------------------------------- dump / load
    def dump() -> str:
        doc = dump_state(api)
        return hb(gzip.compress(json.dumps(doc, sort_keys=True).encode(), mtime=0))
    alias(("anvil_dumpState", "hardhat_dumpState"), dump)

    def load(data: Any) -> bool:
        if isinstance(data, dict):
            doc = data
        else:
            raw = parse_data(data)
            try:
                raw = gzip.decompress(raw)
            except OSError:
                pass
            try:
                doc = json.loads(raw)
            except ValueError:
                raise InvalidParams("invalid argument 0: not a state dump") from None
        if not isinstance(doc, dict) or "accounts" not in doc:
            raise InvalidParams("invalid argument 0: not a state dump")
        load_state(api, doc)
        return True
    alias(("anvil_loadState", "hardhat_loadState"), load, 1)

    def node_info() -> dict:
        h = chain.head.header
        return {"currentBlockNumber": chain.head.number, "currentBlockTimestamp": h.timestamp,
                "currentBlockHash": hb(chain.head.hash), "chainId": chain.evm_chain_id, "hardFork": "cancun",
                "transactionOrder": "fees",
                "environment": {"baseFee": chain.next_base_fee(), "chainId": chain.evm_chain_id,
                                "gasLimit": h.gas_limit, "gasPrice": chain.next_base_fee() + 1},
                "forkConfig": {} if chain.fork is None else {
                    "forkUrl": chain.fork.upstream_url, "forkBlockNumber": chain.fork.block_number}}
    reg("anvil_nodeInfo", node_info)
    alias(("anvil_metadata", "hardhat_metadata"), lambda: {
        "clientVersion": "simnode/v1.14.2", "chainId": chain.evm_chain_id, "instanceId": hb(chain.head.hash),
        "latestBlockNumber": chain.head.number, "latestBlockHash": hb(chain.head.hash), "snapshots": {}})
