"""The state an EVM chain's Ethereum JSON-RPC (`/ext/bc/C/rpc`) handlers share: EthAPI, with block
tag resolution, TransactionArgs and coreth's defaults, the gas price oracle, log filters and
sending. The methods themselves, by namespace:

    eth_service.py       eth_: state, blocks, txs, receipts, logs, calls, sending and signing
    eth_fees.py          eth_: gas price, tip, blob base fee, fee history
    eth_filters.py       eth_: filters (eth_newFilter & co.)
    eth_extras.py        the eth_ methods coreth (every chain) and subnet-EVM (L1 chains) add
    txpool_net_web3.py   txpool_, net_ and web3_
    tracing/debug_trace.py, dev.py debug_ and the dev methods (anvil_, evm_, hardhat_)
Handlers parse params, call the chain (evm_chain.py / execution.py) and format geth-shaped JSON
(rpcjson.py). endpoints.py assembles them with the websocket and admin parts.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, cast, overload

from ...crypto.hashing import keccak256
from ...errors import InvalidArgument
from ...formats.jsonnum import json_kind
from ...rpc.jsonrpc import InvalidParams, RPCError
from .accounts import address_of, dev_keys
from .block_rows import BlockInfo
from .receipts import LogRow
from .call_args import RPC_GAS_CAP, CallArgs
from .evm_chain import ZERO_ADDRESS, EVMChain
from .rpcjson import (hb, log_json, parse_access_list, parse_address, parse_args_quantity, parse_data, parse_hash,
                      parse_quantity)
from .vmerrors import ChainError

if TYPE_CHECKING:
    from eth_typing import Address

    from .execution import Executor

MAX_LOG_RANGE = 100_000
MAX_FILTER_ADDRESSES = 1000  # coreth's eth/filters maxAddresses and maxTopics
MAX_FILTER_TOPICS = 4
FILTER_TIMEOUT_S = 300
# coreth's gas price oracle defaults (eth/ethconfig DefaultFullGPOConfig, eth/gasprice)
ORACLE_BLOCKS = 40
ORACLE_PERCENTILE = 40
ORACLE_LOOKBACK_S = 80
ORACLE_MIN_PRICE = 1  # acp176.MinGasPrice
ORACLE_MAX_PRICE = 150 * 10**9


class EthAPI:
    def __init__(self, chain: EVMChain) -> None:
        self.chain = chain
        self.filters: dict[str, dict] = {}
        self._filter_ids = itertools.count(1)
        keys = dev_keys(10)
        for k in keys:
            chain.dev_keys[address_of(k)] = k
        self.accounts = [address_of(k) for k in keys]
        self._preparing = False
        chain.listeners.append(self._on_event)
        self._oracle_head: bytes | None = None
        self._oracle_price = ORACLE_MIN_PRICE

    @cached_property
    def exec(self) -> Executor:
        """The executor of calls, estimates and proofs (py-evm's, made by the first of them)."""
        self.chain.ctx.prepare_engine()
        from .execution import Executor

        return Executor(self.chain)

    # -------------------------------------------------------------- helpers

    @overload
    def resolve(self, tag: Any, arg: int = 1, allow_missing: Literal[False] = False,
                by_number: bool = False) -> BlockInfo: ...

    @overload
    def resolve(self, tag: Any, arg: int, allow_missing: bool, by_number: bool = False) -> BlockInfo | None: ...

    def resolve(self, tag: Any, arg: int = 1, allow_missing: bool = False,
                by_number: bool = False) -> BlockInfo | None:
        """The block a tag names: an rpc.BlockNumberOrHash argument, or with `by_number` an
        rpc.BlockNumber (no hash, no object; its decoder reads any non-string's JSON text as hex)."""
        chain = self.chain
        if by_number and not isinstance(tag, str):
            raise InvalidArgument(arg, "hex string without 0x prefix")
        if tag is None:
            return chain.head
        if isinstance(tag, dict):
            return self._resolve_object(tag, arg)
        if not isinstance(tag, str):
            raise InvalidArgument(arg, f"json: cannot unmarshal {json_kind(tag)} into Go value of type string")
        t = tag.lower()
        if t in ("latest", "pending", "safe", "finalized", "accepted"):
            return chain.head
        if t == "earliest":
            return chain.block(0)
        if len(t) == 66 and not by_number:
            b = chain.block_by_hash(parse_hash(tag, arg))
            if b is None and not allow_missing:
                raise RPCError("header for hash not found")
            return b
        n = parse_quantity(tag, arg)
        if n.bit_length() > 64:
            raise InvalidArgument(arg, "hex number > 64 bits")
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

    def _resolve_object(self, tag: dict, arg: int) -> BlockInfo | None:
        """{blockHash | blockNumber, requireCanonical} as BlockNumberOrHash decodes it: when a
        field does not decode, the decoder's second try (a string) is the error it reports."""
        number, block_hash = tag.get("blockNumber"), tag.get("blockHash")
        try:
            h = None if block_hash is None else parse_hash(block_hash, arg)
            if number is not None:
                self.resolve(number, arg, by_number=True)
        except (InvalidParams, InvalidArgument):
            raise InvalidArgument(arg, "json: cannot unmarshal object into Go value of type string") from None
        except RPCError:
            pass  # a number past the head: the method's error, below
        if h is not None and number is not None:
            raise InvalidArgument(arg, "cannot specify both BlockHash and BlockNumber, choose one or the other")
        if h is not None:
            b = self.chain.block_by_hash(h)
            if b is None:
                raise RPCError("header for hash not found")
            return b
        if number is None:
            raise ChainError("invalid arguments; neither block nor hash specified")
        return self.resolve(number, arg)

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
        def q(key: str, bits: int) -> int | None:
            return parse_args_quantity(obj, key, bits, arg)

        args = CallArgs(
            sender=parse_address(obj["from"], arg) if obj.get("from") else cast("Address", ZERO_ADDRESS),
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
        if obj.get("data") is not None and obj.get("input") is not None \
                and parse_data(obj["data"]) != parse_data(obj["input"]):
            # setDefaults' check (sending, filling, access lists); a call reads input and ignores data
            raise ChainError('both "data" and "input" are set and not equal. '
                             'Please use "input" to pass transaction call data')
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
        tips: list[int] = []
        for n in range(head.number, max(0, head.number - ORACLE_BLOCKS), -1):
            b = chain.block(n)
            if b is None or b.header.timestamp + ORACLE_LOOKBACK_S < now_s:  # None: before a fork's base block
                break
            base = b.header.base_fee_per_gas or 0  # a forked network's pre-London block has none
            tips.extend(rc.effective_gas_price - base for rc in b.receipts)
        price = self._oracle_price
        if tips:
            tips.sort()
            price = tips[(len(tips) - 1) * ORACLE_PERCENTILE // 100]
        price = max(ORACLE_MIN_PRICE, min(price, ORACLE_MAX_PRICE))
        self._oracle_head, self._oracle_price = head.hash, price
        return price

    # -------------------------------------------------------------- events (filters)

    def _on_event(self, kind: str, payload: Any) -> None:
        if kind == "block":
            self._gc_filters()  # filters nobody polls expire even when no new filter is made
            if not self._preparing:
                # the next call's state, built once the block's work is done (one for a run of blocks)
                try:
                    loop = asyncio.get_running_loop()
                except RuntimeError:  # mined off the event loop (a replay): the next call builds it
                    return
                self._preparing = True
                loop.call_soon(self._prepare_head)
        elif kind == "pending":
            for f in self.filters.values():
                if f["type"] == "pending":
                    f["items"].append(hb(payload.hash))

    def _prepare_head(self) -> None:
        self._preparing = False
        self.exec.prepare_head()

    def _gc_filters(self) -> None:
        now = time.monotonic()
        for fid in [k for k, f in self.filters.items() if now - f["seen"] > FILTER_TIMEOUT_S]:
            del self.filters[fid]

    def _new_filter_id(self) -> str:
        return hex(int.from_bytes(keccak256(b"filter" + next(self._filter_ids).to_bytes(8, "big"))[:16], "big"))

    # -------------------------------------------------------------- logs

    def parse_log_filter(self, crit: Any) -> dict:
        """FilterCriteria as coreth's UnmarshalJSON decodes it: its refusals are argument 0's
        (-32602); the limit on topics is the methods' own (`check_topics`)."""
        if not isinstance(crit, dict):
            raise InvalidArgument(0, f"json: cannot unmarshal {json_kind(crit)} into Go value of type filters.input")
        topics_in = crit.get("topics")
        if topics_in is not None and not isinstance(topics_in, list):
            raise InvalidArgument(0, f"json: cannot unmarshal {json_kind(topics_in)} into Go struct field "
                                     "input.topics of type []interface {}")
        block_hash = crit.get("blockHash")
        if block_hash is not None:
            parse_hash(block_hash)
            if crit.get("fromBlock") is not None or crit.get("toBlock") is not None:
                raise InvalidArgument(0, "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other")
        addrs = crit.get("address")
        addr_list: list[bytes] = []
        if isinstance(addrs, list):
            if len(addrs) > MAX_FILTER_ADDRESSES:
                raise InvalidArgument(0, "exceed max addresses")
            for i, a in enumerate(addrs):
                if not isinstance(a, str):
                    raise InvalidArgument(0, f"non-string address at index {i}")
                addr_list.append(_filter_hex(a, 20, "address", f"invalid address at index {i}: "))
        elif isinstance(addrs, str):
            addr_list = [_filter_hex(addrs, 20, "address", "invalid address: ")]
        elif addrs is not None:
            raise InvalidArgument(0, "invalid addresses in query")
        topics: list[set[bytes] | None] = []
        for t in topics_in or []:
            if t is None:
                topics.append(None)
            elif isinstance(t, str):
                topics.append({_filter_hex(t, 32, "topic")})
            elif isinstance(t, list):
                alts: set[bytes] = set()
                for x in t:
                    if x is None:  # a null alternative matches any topic; coreth reads no further
                        alts.clear()
                        break
                    if not isinstance(x, str):
                        raise InvalidArgument(0, "invalid topic(s)")
                    alts.add(_filter_hex(x, 32, "topic"))
                topics.append(alts or None)  # no alternatives: any topic (geth's empty rule set)
            else:
                raise InvalidArgument(0, "invalid topic(s)")
        return {"addresses": addr_list, "topics": topics, "blockHash": block_hash,
                "fromBlock": crit.get("fromBlock"), "toBlock": crit.get("toBlock")}

    @staticmethod
    def check_topics(f: dict) -> None:
        """eth_getLogs' and the logs subscription's limit (coreth's errExceedMaxTopics)."""
        if len(f["topics"]) > MAX_FILTER_TOPICS:
            raise ChainError("exceed max topics")

    def _tag_number(self, tag: Any, default: int) -> int:
        if tag is None:
            return default
        if isinstance(tag, str) and tag.lower() in ("latest", "pending", "safe", "finalized", "accepted"):
            return self.chain.head.number
        if isinstance(tag, str) and tag.lower() == "earliest":
            return 0
        return parse_quantity(tag)

    @staticmethod
    def _match(lg: LogRow, addrs: set[bytes], topics: list) -> bool:
        if addrs and lg.address not in addrs:
            return False
        if len(topics) > len(lg.topics):
            return False
        for i, want in enumerate(topics):
            if want is not None and lg.topics[i] not in want:
                return False
        return True

    def logs_in_block(self, b: BlockInfo, f: dict) -> list[dict]:
        out = []
        addrs = set(f["addresses"])
        idx = 0
        for ti, rc in enumerate(b.receipts):
            for lg in rc.logs:
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
        # blocks with logs of the given addresses (la/), else blocks with any logs (lb/)
        prefixes = [p + b"la/" + a for a in f["addresses"]] if f["addresses"] else [p + b"lb/"]
        for pre in prefixes:
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
        self.check_topics(f)
        if f["blockHash"]:
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
        # Under automine the block is queued (chain.request_mine: loop.call_soon), and the reply
        # waits for it (EthService.settling): a tx acknowledged is on disk, whatever happens to
        # the process next (a kill -9 right after the reply lost it when the reply went first).
        return hb(self.chain.submit_raw(parse_data(data)))

    def signed_tx(self, obj: Any) -> tuple[Any, bytes, bytes]:
        """eth_sendTransaction / eth_signTransaction: setDefaults' tx, signed by the node's key of
        `from` (an impersonated account's gets a placeholder signature its sender is read from)."""
        if not isinstance(obj, dict):
            raise InvalidParams("invalid argument 0: json: cannot unmarshal non-object into TransactionArgs")
        chain = self.chain
        if not obj.get("from"):
            raise ChainError("unknown account")  # coreth looks up the zero address's wallet
        sender = parse_address(obj["from"])
        key = chain.dev_keys.get(sender)
        if key is None and not (sender in chain.impersonated or chain.auto_impersonate):
            raise ChainError("unknown account")
        from .execution import args_transaction

        args = self.tx_defaults(obj, estimate_gas=True)
        legacy = args.max_fee is None and args.access_list is None
        if key is not None:
            from eth_keys import keys as eth_keys
            utx, pk = args_transaction(chain, args), eth_keys.PrivateKey(key)
            tx = utx.as_signed_transaction(pk, chain_id=chain.evm_chain_id) if legacy else utx.as_signed_transaction(pk)
        else:
            r = int.from_bytes(sender, "big") or 1
            tx = args_transaction(chain, args, (chain.evm_chain_id * 2 + 35 if legacy else 0, r, 1))
        return tx, raw_of(tx), sender

    def send_transaction(self, obj: Any) -> str:
        if not isinstance(obj, dict):
            raise InvalidParams("invalid argument 0: json: cannot unmarshal non-object into TransactionArgs")
        tx, raw, sender = self.signed_tx(obj)
        return hb(self.chain.submit_tx(tx, raw, sender))  # mined before the next request, as send_raw


def _filter_hex(v: str, size: int, what: str, prefix: str = "") -> bytes:
    """coreth's decodeAddress/decodeTopic (eth/filters): hexutil.Decode, then the length."""
    if not v:
        raise InvalidArgument(0, prefix + "empty hex string")
    if not v.startswith(("0x", "0X")):
        raise InvalidArgument(0, prefix + "hex string without 0x prefix")
    h = v[2:]
    if any(c not in "0123456789abcdefABCDEF" for c in h):
        raise InvalidArgument(0, prefix + "invalid hex string")
    if len(h) % 2:
        raise InvalidArgument(0, prefix + "hex string of odd length")
    if len(h) != 2 * size:
        raise InvalidArgument(0, f"{prefix}hex has invalid length {len(h) // 2} after decoding; "
                                 f"expected {size} for {what}")
    return bytes.fromhex(h)


def raw_of(tx: Any) -> bytes:
    """A signed tx's raw bytes (legacy: its RLP; typed: type byte and RLP)."""
    if (tx.type_id or 0) == 0:
        import rlp

        return rlp.encode(tx)
    return tx.encode()
