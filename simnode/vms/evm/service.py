"""The C-Chain's Ethereum JSON-RPC (`/ext/bc/C/rpc`): eth_, net_, web3_, txpool_ and coreth extras.

Handlers parse params, call the chain (chain.py / execution.py) and format geth-shaped JSON
(rpcjson.py). endpoints.py assembles this service with the dev, trace, websocket and admin parts.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import replace
from typing import Any

from ...crypto.hashing import keccak256
from ...network import params_for
from ...rpc.jsonrpc import EthService, InvalidParams, RPCError
from .accounts import address_of, dev_keys, sign_hash
from .chain import RPC_GAS_CAP, BlockInfo, ChainError, EVMChain
from .subnet import SubnetEVMChain
from .typed_data import TypedDataError, typed_data_digest
from .execution import CallArgs, Executor, args_transaction
from .rpcjson import (block_json, hb, header_json, hx, log_json, parse_access_list, parse_address, parse_args_quantity,
                      parse_block_overrides, parse_data, parse_hash, parse_quantity, parse_state_overrides,
                      pending_tx_json, receipt_json, tx_json, tx_object_json)

CLIENT_VERSION = "v1.14.2"
FEE_HISTORY_MAX_CALL_BLOCKS = 2048  # coreth gasprice.DefaultMaxCallBlockHistory
FEE_HISTORY_MAX_DEPTH = 25_000  # DefaultMaxBlockHistory: how far behind the last accepted block
FEE_HISTORY_MAX_PERCENTILES = 100
MAX_LOG_RANGE = 100_000
FILTER_TIMEOUT_S = 300
# coreth's gas price oracle defaults (eth/ethconfig DefaultFullGPOConfig, eth/gasprice)
ORACLE_BLOCKS = 40
ORACLE_PERCENTILE = 40
ORACLE_LOOKBACK_S = 80
ORACLE_MIN_PRICE = 1  # acp176.MinGasPrice
ORACLE_MAX_PRICE = 150 * 10**9


# ----------------------------------------------------------------------------- the service


class EthAPI:
    def __init__(self, chain: EVMChain) -> None:
        self.chain = chain
        self.exec = Executor(chain)
        self.filters: dict[str, dict] = {}
        self._filter_ids = itertools.count(1)
        keys = dev_keys(10)
        for k in keys:
            chain.dev_keys[address_of(k)] = k
        self.accounts = [address_of(k) for k in keys]
        chain.listeners.append(self._on_event)
        self._oracle_head: bytes | None = None
        self._oracle_price = ORACLE_MIN_PRICE

    # -------------------------------------------------------------- helpers

    def resolve(self, tag: Any, arg: int = 1, allow_missing: bool = False) -> BlockInfo | None:
        chain = self.chain
        if tag is None:
            return chain.head
        if isinstance(tag, dict):
            if tag.get("blockHash"):
                b = chain.block_by_hash(parse_hash(tag["blockHash"], arg))
                if b is None:
                    raise RPCError("header for hash not found")
                return b
            if "blockNumber" in tag:
                tag = tag["blockNumber"]
            else:
                raise InvalidParams(f"invalid argument {arg}: invalid block number or hash")
        if isinstance(tag, str):
            t = tag.lower()
            if t in ("latest", "pending", "safe", "finalized", "accepted"):
                return chain.head
            if t == "earliest":
                return chain.block(0)
            if len(t) == 66:
                b = chain.block_by_hash(parse_hash(tag, arg))
                if b is None and not allow_missing:
                    raise RPCError("header for hash not found")
                return b
        n = parse_quantity(tag, arg)
        if n > chain.head.number:
            # coreth refuses what is past the last accepted block (allow-unfinalized-queries is off);
            # the by-number tx count, tx and receipts lookups drop the error and answer null
            if allow_missing:
                return None
            raise RPCError("cannot query unfinalized data")
        b = chain.block(n)
        if b is None and not allow_missing:
            raise RPCError("header not found")
        return b

    def _latest_or_block(self, tag: Any, arg: int = 1) -> BlockInfo | None:
        b = self.resolve(tag, arg)
        return None if b is None or b.number == self.chain.head.number else b

    def call_args(self, obj: Any, arg: int = 0) -> CallArgs:
        """TransactionArgs as geth unmarshals them (quantities within their Go types' widths)."""
        if not isinstance(obj, dict):
            raise InvalidParams(f"invalid argument {arg}: json: cannot unmarshal into TransactionArgs")
        data = obj.get("input")
        if data is None:
            data = obj.get("data")
        elif obj.get("data") is not None and obj.get("data") != data:
            raise ChainError('both "data" and "input" are set and not equal. Please use "input" to pass transaction call data')
        q = lambda k, bits: parse_args_quantity(obj, k, bits, arg)  # noqa: E731
        args = CallArgs(
            sender=parse_address(obj["from"], arg) if obj.get("from") else b"\x00" * 20,
            to=parse_address(obj["to"], arg) if obj.get("to") else None,
            gas=q("gas", 64), gas_price=q("gasPrice", 256), max_fee=q("maxFeePerGas", 256),
            tip=q("maxPriorityFeePerGas", 256), value=q("value", 256) or 0, data=parse_data(data, arg),
            nonce=q("nonce", 64), access_list=parse_access_list(obj.get("accessList"), arg),
        )
        if args.gas_price is not None and (args.max_fee is not None or args.tip is not None):
            raise ChainError("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
        return args

    def tx_defaults(self, obj: Any, estimate_gas: bool) -> CallArgs:
        """coreth's setDefaults: the fees (gasPrice as given, else the oracle's tip with twice the
        head's base fee on top), the pending nonce, the gas (estimated with those fees, or the RPC
        gas cap), the chain ID checked, in coreth's order."""
        args = self.call_args(obj)
        chain = self.chain
        if args.max_fee is not None and args.tip is not None:
            if args.max_fee == 0:
                raise ChainError("maxFeePerGas must be non-zero")
            if args.max_fee < args.tip:
                raise ChainError(f"maxFeePerGas ({hex(args.max_fee)}) < maxPriorityFeePerGas ({hex(args.tip)})")
        elif args.gas_price is not None:
            if args.gas_price == 0:
                raise ChainError("gasPrice must be non-zero after london fork")
        else:
            tip = args.tip if args.tip is not None else self.suggested_tip()
            max_fee = args.max_fee if args.max_fee is not None else tip + 2 * (chain.head.header.base_fee_per_gas or 0)
            if max_fee < tip:
                raise ChainError(f"maxFeePerGas ({hex(max_fee)}) < maxPriorityFeePerGas ({hex(tip)})")
            args = replace(args, max_fee=max_fee, tip=tip)
        if args.nonce is None:
            args = replace(args, nonce=chain.pending_nonce(args.sender))
        if args.to is None and not args.data:
            raise ChainError("contract creation without any data provided")
        if args.gas is None:
            gas = self.exec.estimate(replace(args, gas=None, nonce=None), None) if estimate_gas else RPC_GAS_CAP
            args = replace(args, gas=gas)
        chain_id = parse_args_quantity(obj, "chainId", 256, 0)
        if chain_id is not None and chain_id != chain.evm_chain_id:
            raise ChainError(f"chainId does not match node's (have={chain_id}, want={chain.evm_chain_id})")
        return args

    def suggested_tip(self) -> int:
        """coreth's gas price oracle (eth/gasprice with ethconfig's defaults): the 40th percentile
        of the effective tips of the txs in the head's last 40 blocks (never block 0), walking back
        from the head and stopping at the first block more than 80 s older than the node's clock;
        clamped to [1 wei, 150 gwei]. With no tips it repeats its previous answer (1 wei at first),
        and it answers once per head."""
        chain = self.chain
        head = chain.head
        if head.hash == self._oracle_head:
            return self._oracle_price
        now_s = chain.clock.now_ms() // 1000
        tips = []
        for n in range(head.number, max(0, head.number - ORACLE_BLOCKS), -1):
            b = chain.block(n)
            if b is None or b.header.timestamp + ORACLE_LOOKBACK_S < now_s:  # None: before a fork's base block
                break
            base = b.header.base_fee_per_gas
            tips.extend(rc[3] - base for rc in b.receipts)
        price = self._oracle_price
        if tips:
            tips.sort()
            price = tips[(len(tips) - 1) * ORACLE_PERCENTILE // 100]
        price = max(ORACLE_MIN_PRICE, min(price, ORACLE_MAX_PRICE))
        self._oracle_head, self._oracle_price = head.hash, price
        return price

    # -------------------------------------------------------------- events (filters)

    def _on_event(self, kind: str, payload: Any) -> None:
        if kind == "block":  # filters nobody polls expire even when no new filter is made
            self._gc_filters()
        elif kind == "pending":
            for f in self.filters.values():
                if f["type"] == "pending":
                    f["items"].append(hb(payload.hash))

    def _gc_filters(self) -> None:
        now = time.monotonic()
        for fid in [k for k, f in self.filters.items() if now - f["seen"] > FILTER_TIMEOUT_S]:
            del self.filters[fid]

    def _new_filter_id(self) -> str:
        return hex(int.from_bytes(keccak256(b"filter" + next(self._filter_ids).to_bytes(8, "big"))[:16], "big"))

    # -------------------------------------------------------------- logs

    def parse_log_filter(self, crit: Any) -> dict:
        if not isinstance(crit, dict):
            raise InvalidParams("invalid argument 0: json: cannot unmarshal non-object into FilterCriteria")
        addrs = crit.get("address")
        if addrs is None:
            addr_list: list[bytes] = []
        elif isinstance(addrs, str):
            addr_list = [parse_address(addrs)]
        else:
            addr_list = [parse_address(a) for a in addrs]
        topics = []
        for t in crit.get("topics") or []:
            if t is None:
                topics.append(None)
            elif isinstance(t, str):
                topics.append({parse_hash(t)})
            else:
                topics.append({parse_hash(x) for x in t if x is not None} if all(x is not None for x in t) else None)
        if len(topics) > 4:
            raise ChainError("too many topics")
        return {"addresses": addr_list, "topics": topics, "blockHash": crit.get("blockHash"),
                "fromBlock": crit.get("fromBlock"), "toBlock": crit.get("toBlock")}

    def _tag_number(self, tag: Any, default: int) -> int:
        if tag is None:
            return default
        if isinstance(tag, str) and tag.lower() in ("latest", "pending", "safe", "finalized", "accepted"):
            return self.chain.head.number
        if isinstance(tag, str) and tag.lower() == "earliest":
            return 0
        return parse_quantity(tag)

    @staticmethod
    def _match(lg: list, addrs: set[bytes], topics: list) -> bool:
        if addrs and lg[0] not in addrs:
            return False
        if len(topics) > len(lg[1]):
            return False
        for i, want in enumerate(topics):
            if want is not None and lg[1][i] not in want:
                return False
        return True

    def logs_in_block(self, b: BlockInfo, f: dict) -> list[dict]:
        out = []
        addrs = set(f["addresses"])
        idx = 0
        for ti, rc in enumerate(b.receipts):
            for lg in rc[5]:
                if self._match(lg, addrs, f["topics"]):
                    out.append(log_json(b, ti, idx, lg))
                idx += 1
        return out

    def logs_in_range(self, f: dict, start: int, end: int) -> list[dict]:
        chain = self.chain
        end = min(end, chain.head.number)
        if start > end:
            return []
        if end - start + 1 > MAX_LOG_RANGE:
            raise ChainError(f"requested too many blocks from {start} to {end}, maximum is set to {MAX_LOG_RANGE}")
        store, p = chain.store, chain.prefix
        nums: set[int] = set()
        if f["addresses"]:
            for a in f["addresses"]:
                pre = p + b"la/" + a
                for k, _ in store.iterate(pre, start=pre + start.to_bytes(8, "big")):
                    n = int.from_bytes(k[-8:], "big")
                    if n > end:
                        break
                    nums.add(n)
        else:
            pre = p + b"lb/"
            for k, _ in store.iterate(pre, start=pre + start.to_bytes(8, "big")):
                n = int.from_bytes(k[-8:], "big")
                if n > end:
                    break
                nums.add(n)
        out: list[dict] = []
        for n in sorted(nums):
            b = chain.block(n)
            if b is not None:
                out.extend(self.logs_in_block(b, f))
        return out

    def get_logs(self, crit: Any) -> list[dict]:
        f = self.parse_log_filter(crit)
        if f["blockHash"]:
            if f["fromBlock"] is not None or f["toBlock"] is not None:
                raise ChainError("cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other")
            b = self.chain.block_by_hash(parse_hash(f["blockHash"]))
            if b is None:
                raise ChainError("unknown block")
            return self.logs_in_block(b, f)
        head = self.chain.head.number
        start = self._tag_number(f["fromBlock"], head)
        end = self._tag_number(f["toBlock"], head)
        if start > end and f["toBlock"] is not None:
            raise ChainError("invalid block range params")
        return self.logs_in_range(f, start, end)

    # -------------------------------------------------------------- sending

    def send_raw(self, data: Any) -> str:
        # Answered at once, as Anvil does. Under automine the block is already queued
        # (chain.request_mine: loop.call_soon), and the event loop runs it before it reads any
        # further request: whatever a client sends after this reply sees the tx mined. The
        # client's turn-around overlaps the block build instead of following it.
        return hb(self.chain.submit_raw(parse_data(data)))

    def signed_tx(self, obj: Any) -> tuple[Any, bytes, bytes]:
        """eth_sendTransaction / eth_signTransaction: setDefaults' tx, signed by the node's key of
        `from` (an impersonated account's gets a placeholder signature its sender is read from)."""
        if not isinstance(obj, dict):
            raise InvalidParams("invalid argument 0: json: cannot unmarshal non-object into TransactionArgs")
        chain = self.chain
        if not obj.get("from"):
            raise ChainError("from not specified")
        sender = parse_address(obj["from"])
        key = chain.dev_keys.get(sender)
        if key is None and not (sender in chain.impersonated or chain.auto_impersonate):
            raise ChainError("unknown account")
        args = self.tx_defaults(obj, estimate_gas=True)
        legacy = args.max_fee is None and args.access_list is None
        if key is not None:
            from eth_keys import keys as eth_keys
            utx, pk = args_transaction(chain, args), eth_keys.PrivateKey(key)
            tx = utx.as_signed_transaction(pk, chain_id=chain.evm_chain_id) if legacy else utx.as_signed_transaction(pk)
        else:
            r = int.from_bytes(sender, "big") or 1
            tx = args_transaction(chain, args, (chain.evm_chain_id * 2 + 35 if legacy else 0, r, 1))
        return tx, _raw_of(tx), sender

    def send_transaction(self, obj: Any) -> str:
        if not isinstance(obj, dict):
            raise InvalidParams("invalid argument 0: json: cannot unmarshal non-object into TransactionArgs")
        tx, raw, sender = self.signed_tx(obj)
        return hb(self.chain.submit_tx(tx, raw, sender))  # mined before the next request, as send_raw


def _hex_or_decimal(v: Any) -> int:
    """math.HexOrDecimal64: a JSON number, a 0x quantity or a decimal string."""
    if isinstance(v, str) and not v.lower().startswith("0x"):
        try:
            return int(v, 10)
        except ValueError:
            raise InvalidParams(f"invalid argument 0: invalid hex or decimal integer {v!r}") from None
    return parse_quantity(v, 0)


def _block_rewards(block: BlockInfo, base_fee: int, percentiles: list[float]) -> list[int]:
    """slimBlock.processPercentiles: the tip at each gas-used percentile, txs sorted by tip."""
    if not block.receipts:
        return [0] * len(percentiles)
    txs = sorted(((rc[3] - base_fee, rc[2]) for rc in block.receipts), key=lambda t: t[0])
    gas_used = block.header.gas_used
    out = []
    index, total = 0, txs[0][1]
    for p in percentiles:
        threshold = int(gas_used * p / 100)
        while total < threshold and index < len(txs) - 1:
            index += 1
            total += txs[index][1]
        out.append(txs[index][0])
    return out


def _raw_of(tx: Any) -> bytes:
    import rlp
    if (tx.type_id or 0) == 0:
        return rlp.encode(tx)
    return tx.encode()


_ETH_FORK_BLOCKS = ("homesteadBlock", "daoForkBlock", "eip150Block", "eip155Block", "eip158Block", "byzantiumBlock",
                    "constantinopleBlock", "petersburgBlock", "istanbulBlock", "muirGlacierBlock")


def chain_config_json(chain: EVMChain) -> dict:
    """coreth's eth_getChainConfig: Ethereum fork blocks from the genesis, Avalanche upgrade
    times from the network's schedule (shanghai = Durango, cancun = Etna)."""
    u = params_for(chain.ctx.config.network_id).upgrades
    genesis_config = chain.genesis_json.get("config", {})
    cfg: dict[str, Any] = {name: genesis_config.get(name, 0) for name in _ETH_FORK_BLOCKS}
    cfg.update({
        "chainId": chain.evm_chain_id, "daoForkSupport": genesis_config.get("daoForkSupport", True),
        "berlinBlock": u.berlin_block, "londonBlock": u.london_block, "shanghaiTime": u.durango, "cancunTime": u.etna,
        "apricotPhase1BlockTimestamp": u.apricot_phase1, "apricotPhase2BlockTimestamp": u.apricot_phase2,
        "apricotPhase3BlockTimestamp": u.apricot_phase3, "apricotPhase4BlockTimestamp": u.apricot_phase4,
        "apricotPhase5BlockTimestamp": u.apricot_phase5, "apricotPhasePre6BlockTimestamp": u.apricot_phase_pre6,
        "apricotPhase6BlockTimestamp": u.apricot_phase6, "apricotPhasePost6BlockTimestamp": u.apricot_phase_post6,
        "banffBlockTimestamp": u.banff, "cortinaBlockTimestamp": u.cortina, "durangoBlockTimestamp": u.durango,
        "etnaTimestamp": u.etna, "fortunaTimestamp": u.fortuna, "graniteTimestamp": u.granite,
        "heliconTimestamp": u.helicon,
    })
    return dict(sorted(cfg.items()))


def register_eth(svc: EthService, api: EthAPI) -> None:
    chain = api.chain
    ex = api.exec
    reg = svc.register

    reg("web3_clientVersion", lambda: CLIENT_VERSION)
    reg("web3_sha3", lambda d: hb(keccak256(parse_data(d))), 1)
    reg("net_version", lambda: str(chain.evm_chain_id))
    reg("net_listening", lambda: True)
    reg("net_peerCount", lambda: "0x0")
    reg("eth_chainId", lambda: hx(chain.evm_chain_id))
    reg("eth_blockNumber", lambda: hx(chain.head.number))
    reg("eth_syncing", lambda: False)
    reg("eth_accounts", lambda: [hb(a) for a in api.accounts])
    reg("eth_coinbase", lambda: hb(chain.head.header.coinbase))
    reg("eth_mining", lambda: False)
    reg("eth_hashrate", lambda: "0x0")
    reg("eth_protocolVersion", lambda: "0x41")

    def get_balance(addr: Any, tag: Any = None) -> str:
        a = parse_address(addr)
        return hx(chain.view(api._latest_or_block(tag)).get_balance(a))
    reg("eth_getBalance", get_balance, 1, 2)

    def get_code(addr: Any, tag: Any = None) -> str:
        return hb(chain.view(api._latest_or_block(tag)).get_code(parse_address(addr)))
    reg("eth_getCode", get_code, 1, 2)

    def get_storage(addr: Any, slot: Any, tag: Any = None) -> str:
        a = parse_address(addr)
        s = parse_data(slot, 1) if isinstance(slot, str) and len(slot) == 66 else None
        key = int.from_bytes(s, "big") if s is not None else parse_quantity(slot, 1)
        v = chain.view(api._latest_or_block(tag, 2)).get_storage(a, key)
        return "0x" + v.to_bytes(32, "big").hex()
    reg("eth_getStorageAt", get_storage, 2, 3)

    def get_tx_count(addr: Any, tag: Any = None) -> str:
        a = parse_address(addr)
        if isinstance(tag, str) and tag.lower() == "pending":
            return hx(chain.pending_nonce(a))
        return hx(chain.view(api._latest_or_block(tag)).get_nonce(a))
    reg("eth_getTransactionCount", get_tx_count, 1, 2)

    def block_by_number(tag: Any, full: Any = False) -> Any:
        return block_json(chain, api.resolve(tag, 0), bool(full))
    reg("eth_getBlockByNumber", block_by_number, 1, 2)

    def header_by_number(tag: Any) -> Any:
        return header_json(api.resolve(tag, 0))
    reg("eth_getHeaderByNumber", header_by_number, 1)

    def block_by_hash(h: Any, full: Any = False) -> Any:
        b = chain.block_by_hash(parse_hash(h))
        return None if b is None else block_json(chain, b, bool(full))
    reg("eth_getBlockByHash", block_by_hash, 1, 2)

    def header_by_hash(h: Any) -> Any:
        b = chain.block_by_hash(parse_hash(h))
        return None if b is None else header_json(b)
    reg("eth_getHeaderByHash", header_by_hash, 1)

    def count_by_number(tag: Any) -> Any:
        b = api.resolve(tag, 0, allow_missing=True)
        return None if b is None else hx(len(b.raws))
    reg("eth_getBlockTransactionCountByNumber", count_by_number, 1)

    def count_by_hash(h: Any) -> Any:
        b = chain.block_by_hash(parse_hash(h))
        return None if b is None else hx(len(b.raws))
    reg("eth_getBlockTransactionCountByHash", count_by_hash, 1)
    reg("eth_getUncleCountByBlockNumber", lambda tag: "0x0", 1)
    reg("eth_getUncleCountByBlockHash", lambda h: "0x0", 1)
    reg("eth_getUncleByBlockNumberAndIndex", lambda a, b: None, 2)
    reg("eth_getUncleByBlockHashAndIndex", lambda a, b: None, 2)

    def tx_by_hash(h: Any) -> Any:
        hh = parse_hash(h)
        loc = chain.tx_location(hh)
        if loc is not None:
            b, i = loc
            return tx_json(chain, b.txs[i], b.senders[i], b, i, b.raws[i])
        p = chain.pool.get(hh)
        if p is not None:
            return pending_tx_json(chain, p)
        return None
    reg("eth_getTransactionByHash", tx_by_hash, 1)

    def tx_by_block_index(b: BlockInfo | None, idx: Any) -> Any:
        i = parse_quantity(idx, 1)
        if b is None or i >= len(b.raws):
            return None
        return tx_json(chain, b.txs[i], b.senders[i], b, i, b.raws[i])
    reg("eth_getTransactionByBlockNumberAndIndex",
        lambda tag, idx: tx_by_block_index(api.resolve(tag, 0, allow_missing=True), idx), 2)
    reg("eth_getTransactionByBlockHashAndIndex",
        lambda h, idx: tx_by_block_index(chain.block_by_hash(parse_hash(h)), idx), 2)

    def raw_by_hash(h: Any) -> Any:
        hh = parse_hash(h)
        loc = chain.tx_location(hh)
        if loc is not None:
            return hb(loc[0].raws[loc[1]])
        p = chain.pool.get(hh)
        return hb(p.raw) if p else None
    reg("eth_getRawTransactionByHash", raw_by_hash, 1)

    def receipt(h: Any) -> Any:
        loc = chain.tx_location(parse_hash(h))
        if loc is None:
            return None
        return receipt_json(*loc)
    reg("eth_getTransactionReceipt", receipt, 1)

    def block_receipts(tag: Any) -> Any:
        b = api.resolve(tag, 0, allow_missing=True)
        if b is None:
            return None
        return [receipt_json(b, i) for i in range(len(b.raws))]
    reg("eth_getBlockReceipts", block_receipts, 1)

    reg("eth_getLogs", api.get_logs, 1)

    def call(obj: Any, tag: Any = None, overrides: Any = None, block_overrides: Any = None) -> str:
        args = api.call_args(obj)
        return hb(ex.call(args, api._latest_or_block(tag), parse_state_overrides(overrides, 2),
                          parse_block_overrides(block_overrides, 3)))
    reg("eth_call", call, 1, 4)

    def call_detailed(obj: Any, tag: Any = None, overrides: Any = None) -> dict:
        return ex.call_detailed(api.call_args(obj), api._latest_or_block(tag), parse_state_overrides(overrides, 2))
    reg("eth_callDetailed", call_detailed, 1, 3)

    def estimate(obj: Any, tag: Any = None, overrides: Any = None) -> str:
        return hx(ex.estimate(api.call_args(obj), api._latest_or_block(tag), parse_state_overrides(overrides, 2)))
    reg("eth_estimateGas", estimate, 1, 3)

    def create_access_list(obj: Any, tag: Any = None) -> dict:
        block = api._latest_or_block(tag)
        return ex.access_list(api.tx_defaults(obj, estimate_gas=False), block)
    reg("eth_createAccessList", create_access_list, 1, 2)

    def get_proof(addr: Any, keys: Any, tag: Any = None) -> dict:
        a = parse_address(addr)
        slots = [int.from_bytes(parse_data(k, 1), "big") for k in (keys or [])]
        return ex.proof(a, slots, api._latest_or_block(tag, 2))
    reg("eth_getProof", get_proof, 2, 3)

    reg("eth_baseFee", lambda: hx(chain.next_base_fee()))
    reg("eth_maxPriorityFeePerGas", lambda: hx(api.suggested_tip()))
    reg("eth_gasPrice", lambda: hx(api.suggested_tip() + chain.next_base_fee()))
    reg("eth_blobBaseFee", lambda: "0x1")

    def suggest_price_options() -> dict:
        tip = api.suggested_tip()
        base = chain.next_base_fee()
        cap = 20 * 10**9
        slow = max(min(tip, cap) * 95 // 100, 1)
        normal = min(tip, cap)
        fast = tip * 105 // 100
        mk = lambda t: {"maxPriorityFeePerGas": hx(t), "maxFeePerGas": hx(2 * base + t)}
        return {"slow": mk(slow), "normal": mk(normal), "fast": mk(fast)}
    reg("eth_suggestPriceOptions", suggest_price_options)
    reg("eth_getChainConfig", lambda: chain_config_json(chain))

    def fee_history(count: Any, newest: Any, percentiles: Any = None) -> dict:
        """coreth's oracle (eth/gasprice/feehistory.go): one base fee per block (no next-block
        entry, unlike geth), at most 2048 blocks, none past the last accepted block."""
        blocks = _hex_or_decimal(count)
        pcts = list(percentiles or [])
        if blocks < 1:
            return {"oldestBlock": "0x0", "gasUsedRatio": None}
        if len(pcts) > FEE_HISTORY_MAX_PERCENTILES:
            raise ChainError(f"invalid reward percentile: over the query limit {FEE_HISTORY_MAX_PERCENTILES}")
        blocks = min(blocks, FEE_HISTORY_MAX_CALL_BLOCKS)
        for i, p in enumerate(pcts):
            if p < 0 or p > 100:
                raise ChainError(f"invalid reward percentile: {p:f}")
            if i > 0 and p <= pcts[i - 1]:
                raise ChainError(f"invalid reward percentile: #{i - 1}:{pcts[i - 1]:f} >= #{i}:{p:f}")
        head = chain.head.number
        tag = newest.lower() if isinstance(newest, str) else newest
        if tag == "pending":  # no pending block: up to the latest, one block fewer
            tag, blocks = "latest", blocks - 1
            if blocks == 0:
                return {"oldestBlock": "0x0", "gasUsedRatio": None}
        if tag in ("latest", "accepted", "safe", "finalized"):
            last = head
        else:
            last = 0 if tag == "earliest" else parse_quantity(newest, 1)
            if head > FEE_HISTORY_MAX_DEPTH - 1 and head - (FEE_HISTORY_MAX_DEPTH - 1) > last:
                raise ChainError(f"request beyond historical limit: requested {last}, head {head}")
            if last > head:
                raise ChainError(f"request beyond head block: requested {last}, head {head}")
        blocks = min(blocks, last + 1, last + FEE_HISTORY_MAX_DEPTH - head)
        oldest = last + 1 - blocks
        base_fees, ratios, rewards = [], [], []
        for num in range(oldest, last + 1):
            b = chain.block(num)
            assert b is not None
            h = b.header
            base = h.base_fee_per_gas or 0
            base_fees.append(hx(base))
            ratios.append(h.gas_used / h.gas_limit)
            if pcts:
                rewards.append([hx(r) for r in _block_rewards(b, base, pcts)])
        out: dict[str, Any] = {"oldestBlock": hx(oldest)}
        if pcts:
            out["reward"] = rewards
        out["baseFeePerGas"] = base_fees
        out["gasUsedRatio"] = ratios
        return out
    reg("eth_feeHistory", fee_history, 2, 3)

    reg("eth_sendRawTransaction", api.send_raw, 1)
    reg("eth_sendTransaction", api.send_transaction, 1)

    def sign(addr: Any, data: Any) -> str:
        a = parse_address(addr)
        key = chain.dev_keys.get(a)
        if key is None:
            raise ChainError("unknown account")
        msg = parse_data(data, 1)
        digest = keccak256(b"\x19Ethereum Signed Message:\n" + str(len(msg)).encode() + msg)
        return hb(sign_hash(key, digest))
    reg("eth_sign", sign, 2)
    reg("personal_sign", lambda data, addr, *_: sign(addr, data), 2, 3)

    def sign_typed(version: str, first: Any, second: Any) -> str:
        """EIP-712 (typed_data.py) by a node-held account; Anvil's -32602 errors. MetaMask's
        eth_signTypedData takes [data, address]; the address may come first, as in the others."""
        addr, data = (second, first) if version == "v1" and not isinstance(first, str) else (first, second)
        key = chain.dev_keys.get(parse_address(addr))
        if key is None:
            raise InvalidParams("No Signer available")
        try:
            digest = typed_data_digest(data, version)
        except TypedDataError as exc:
            raise InvalidParams(str(exc)) from None
        return hb(sign_hash(key, digest))
    reg("eth_signTypedData", lambda a, b: sign_typed("v1", a, b), 2)
    reg("eth_signTypedData_v3", lambda a, b: sign_typed("v3", a, b), 2)
    reg("eth_signTypedData_v4", lambda a, b: sign_typed("v4", a, b), 2)

    def sign_transaction(obj: Any) -> dict:
        tx, raw, _ = api.signed_tx(obj)
        return {"raw": hb(raw), "tx": tx_object_json(tx)}
    reg("eth_signTransaction", sign_transaction, 1)

    def fill_transaction(obj: Any) -> dict:
        """coreth's FillTransaction: setDefaults' tx, unsigned, for the caller to sign."""
        tx = args_transaction(chain, api.tx_defaults(obj, estimate_gas=True), (0, 0, 0))
        return {"raw": hb(_raw_of(tx)), "tx": tx_object_json(tx)}
    reg("eth_fillTransaction", fill_transaction, 1)

    # filters
    def new_filter(crit: Any) -> str:
        api._gc_filters()
        f = api.parse_log_filter(crit)
        fid = api._new_filter_id()
        head = chain.head.number
        f.update(type="logs", seen=time.monotonic(), last=head)
        api.filters[fid] = f
        return fid
    reg("eth_newFilter", new_filter, 1)

    def new_block_filter() -> str:
        api._gc_filters()
        fid = api._new_filter_id()
        api.filters[fid] = {"type": "blocks", "seen": time.monotonic(), "last": chain.head.number}
        return fid
    reg("eth_newBlockFilter", new_block_filter)

    def new_pending_filter(_full: Any = None) -> str:
        api._gc_filters()
        fid = api._new_filter_id()
        api.filters[fid] = {"type": "pending", "seen": time.monotonic(), "items": []}
        return fid
    reg("eth_newPendingTransactionFilter", new_pending_filter, 0, 1)

    def filter_changes(fid: Any) -> list:
        f = api.filters.get(str(fid).lower()) or api.filters.get(str(fid))
        if f is None:
            raise ChainError("filter not found")
        f["seen"] = time.monotonic()
        head = chain.head.number
        if f["type"] == "pending":
            items, f["items"] = f["items"], []
            return items
        if f["type"] == "blocks":
            out = []
            for n in range(f["last"] + 1, head + 1):
                b = chain.block(n)
                if b is not None:
                    out.append(hb(b.hash))
            f["last"] = head
            return out
        start = max(f["last"] + 1, api._tag_number(f["fromBlock"], 0) if f["fromBlock"] else 0)
        end = api._tag_number(f["toBlock"], head) if f["toBlock"] else head
        out = api.logs_in_range(f, start, min(end, head)) if start <= head else []
        f["last"] = head
        return out
    reg("eth_getFilterChanges", filter_changes, 1)

    def filter_logs(fid: Any) -> list:
        f = api.filters.get(str(fid))
        if f is None or f["type"] != "logs":
            raise ChainError("filter not found")
        f["seen"] = time.monotonic()
        crit = {"address": [hb(a) for a in f["addresses"]],
                "topics": [None if t is None else [hb(x) for x in sorted(t)] for t in f["topics"]],
                "fromBlock": f["fromBlock"], "toBlock": f["toBlock"], "blockHash": f["blockHash"]}
        return api.get_logs(crit)
    reg("eth_getFilterLogs", filter_logs, 1)
    reg("eth_uninstallFilter", lambda fid: api.filters.pop(str(fid), None) is not None, 1)

    # txpool
    def txpool_content() -> dict:
        pending, queued = chain.pool.split(chain.nonce_of)
        fmt = lambda groups: {
            "0x" + s.hex(): {str(p.nonce): pending_tx_json(chain, p) for p in ps} for s, ps in sorted(groups.items())}
        return {"pending": fmt(pending), "queued": fmt(queued)}
    reg("txpool_content", txpool_content)

    def txpool_content_from(addr: Any) -> dict:
        a = parse_address(addr)
        pending, queued = chain.pool.split(chain.nonce_of)
        return {"pending": {str(p.nonce): pending_tx_json(chain, p) for p in pending.get(a, [])},
                "queued": {str(p.nonce): pending_tx_json(chain, p) for p in queued.get(a, [])}}
    reg("txpool_contentFrom", txpool_content_from, 1)

    def txpool_status() -> dict:
        pending, queued = chain.pool.split(chain.nonce_of)
        return {"pending": hx(sum(map(len, pending.values()))), "queued": hx(sum(map(len, queued.values())))}
    reg("txpool_status", txpool_status)

    def txpool_inspect() -> dict:
        pending, queued = chain.pool.split(chain.nonce_of)

        def line(p: Any) -> str:
            to = "0x" + p.tx.to.hex() if p.tx.to else "contract creation"
            return f"{to}: {p.value} wei + {p.gas} gas × {p.max_fee} wei"
        fmt = lambda groups: {"0x" + s.hex(): {str(p.nonce): line(p) for p in ps} for s, ps in sorted(groups.items())}
        return {"pending": fmt(pending), "queued": fmt(queued)}
    reg("txpool_inspect", txpool_inspect)


def register_subnet(svc: EthService, api: EthAPI, chain: SubnetEVMChain) -> None:
    """subnet-EVM's own eth_ methods (internal/ethapi api_extra.go)."""

    def fee_config(tag: Any = None) -> dict:
        block = api.resolve(tag, 0)
        assert block is not None
        return chain.fee_config_json(block)
    svc.register("eth_feeConfig", fee_config, 0, 1)
    svc.register("eth_getChainConfig", chain.chain_config_json)

    def timestamp(value: Any) -> int:
        """A `*uint64` argument: a JSON number, else the head's timestamp."""
        if value is None:
            return chain.head.header.timestamp
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 64:
            kind = "string" if isinstance(value, str) else "number" if isinstance(value, (int, float)) else "object"
            raise InvalidParams(f"invalid argument 0: json: cannot unmarshal {kind} into Go value of type uint64")
        return value
    svc.register("eth_getActivePrecompilesAt", lambda ts=None: chain.active_precompiles_json(timestamp(ts)), 0, 1)
    svc.register("eth_getActiveRulesAt", lambda ts=None: chain.active_rules_json(timestamp(ts)), 0, 1)
