"""Field-by-field comparison of a real AvalancheGo node's answers with simnode's.

One `Call` is sent to both nodes as raw HTTP; the replies are compared as HTTP status, then as
JSON: every key (name and order), every type, every value, error codes and messages. What may
differ is an explicit, short list (`ALLOWED`): values that come from the wall clock or from the
node's own identity, each with its reason. Everything else that differs is a `Divergence`.
"""

from __future__ import annotations

import copy
import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from ..formats.ids import id_from_str, id_to_str, utxo_id


@dataclass(frozen=True, slots=True)
class Call:
    """A request: `body` is a JSON-RPC request object, or raw text (malformed on purpose), or
    None for a GET. `sim_body` replaces it on simnode when the two nodes name a thing by
    different IDs (a block built at a different time)."""

    path: str
    body: Any
    label: str = ""
    sim_body: Any = None
    http_method: str = "POST"
    content_type: str = "application/json"

    @property
    def method(self) -> str:
        if isinstance(self.body, dict):
            return str(self.body.get("method", ""))
        return "GET" if self.body is None else "raw"


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    content_type: str
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None


@dataclass(frozen=True, slots=True)
class Divergence:
    call: Call
    where: str
    real: Any
    sim: Any

    def line(self) -> str:
        real = json.dumps(self.real)[:300]
        sim = json.dumps(self.sim)[:300]
        return f"{self.call.label or self.call.method} {self.call.path} {self.where}: real={real} sim={sim}"


@dataclass(frozen=True, slots=True)
class Allowed:
    method: str  # regex on the method name
    where: str   # regex on the JSON path
    reason: str


# What may differ between one real node and simnode (values only; names and types never).
ALLOWED: tuple[Allowed, ...] = (
    Allowed(r"^info\.getNodeIP$", r"^\$\.result\.ip$", "the node's own IP:port (each listens on its own port)"),
    Allowed(r"^platform\.(getTimestamp|getFeeState|getValidatorFeeState)$", r"\.timestamp$",
            "wall-clock time of the chain's last block"),
    Allowed(r"^platform\.(getFeeState|getValidatorFeeState)$", r"\.(excess|capacity|price)$",
            "fee state decays/refills with wall-clock time between blocks"),
    Allowed(r"^(avm|platform)\.(getBlock|getBlockByHeight)$", r"^\$\.result\.block",
            "a block holds its build time, so its bytes and ID differ"),
    Allowed(r"^(health\.|GET|raw)", r"\.checks\..*\.(timestamp|duration|contiguousFailures|timeOfFirstFailure)$",
            "health check run times"),
    Allowed(r"^(health\.|GET|raw)", r"\.checks\.diskspace\.message\.availableDisk",
            "the free space of the node's own disk"),
    Allowed(r"^(health\.|GET|raw)", r"\.checks\.router\.message\.(outstandingRequests|longestRunningRequest)$",
            "the requests in flight in the node's router at the moment of the check"),
    Allowed(r"^info\.peers$", r"^\$\.result\.(numPeers|peers)",
            "peers: the real node runs alone; simnode shows the other genesis stakers as its peers"),
    Allowed(r"^eth_(getBlockBy(Number|Hash)|getHeaderBy(Number|Hash))$",
            r"^\$\.result(\.transactions\[\d+\])?\.(hash|parentHash|timestamp|timestampMilliseconds|blockHash)$",
            "a block's time is the wall clock, and its hash covers it"),
    Allowed(r"^eth_(getBlockBy(Number|Hash)|getHeaderBy(Number|Hash))$", r"^\$\.result\.extraData$",
            "the ACP-176 fee window in the header: capacity and excess move with the wall-clock time between blocks"),
    Allowed(r"^eth_(getTransactionByHash|getTransactionReceipt|getLogs|getBlockReceipts|getTransactionByBlock.*)$",
            r"(\.|\])blockHash$", "the hash of a block built at a different wall-clock time"),
    Allowed(r"^platform\.getCurrentValidators$", r"\.uptime$", "uptime is measured on the wall clock"),
    Allowed(r"^platform\.getCurrentValidators$", r"\.connected$",
            "peers: the real node runs alone, so the other genesis stakers are not connected to it"),
    Allowed(r"^platform\.sampleValidators$", r"^\$\.result\.validators\[\d+\]$",
            "a random sample (by weight, with replacement): only its size and members' kind can match"),
    Allowed(r"^info\.uptime$", r"Percentage$", "uptime is measured on the wall clock"),
)


# Lists whose order is Go's map order (random per call): compared as multisets.
UNORDERED: tuple[tuple[str, str], ...] = (
    (r"^avm\.getAllBalances$", r"^\$\.result\.balances$"),
    (r"^eth_createAccessList$", r"\.storageKeys$"),
)


# Lists of UTXOs: AvalancheGo writes a block's UTXOs in Go map order (X and P `writeUTXOs` range over
# a map), so the outputs of one tx come back in any order, while txs keep the index's order (newest
# first). Such a list is compared with each run of one tx's outputs sorted, and `endIndex.utxo` (the
# last listed UTXO's ID) as the ID of each side's own last listed UTXO. A full page may stop inside
# one tx's outputs: its last run is then compared by tx and count (which outputs it holds is map
# order too), and each side is paged on by its own cursor.
UTXO_LISTS: tuple[tuple[str, str], ...] = (
    (r"^(avm|platform|avax)\.getUTXOs$", r"^\$\.result\.utxos$"),
    (r"^platform\.getBalance$", r"^\$\.result\.utxoIDs$"),
)

# Values that follow from a block's time, which is each node's own wall clock when it builds the
# block (the two nodes build the same tx's block up to a second apart): a validator's start time,
# the reward computed from its duration, the supply that counts that reward, an L1 validator's
# balance that pays the continuous fee per second. Compared within a bound, not for equality.
TIME_SKEW_S = 2
TIME_DERIVED: tuple[tuple[str, str, str], ...] = (
    (r"^platform\.(getCurrentValidators|getL1Validator)$", r"(^\$\.result|\])(\.delegators\[\d+\])?\.startTime$",
     "seconds"),
    (r"^platform\.getCurrentValidators$", r"\.potentialReward$", "relative"),
    (r"^platform\.getCurrentSupply$", r"^\$\.result\.supply$", "relative"),
    (r"^platform\.(getCurrentValidators|getL1Validator)$", r"(^\$\.result|\])\.balance$", "relative"),
)
RELATIVE_SKEW = 1e-5  # seen live for 1 s of skew: a reward 5.8e-7, the supply 1.8e-11, an L1 balance 1e-9


def within_time_skew(call: Call, where: str, real: Any, sim: Any) -> bool:
    """`real` and `sim` are decimal strings of a value that follows from a block's time, and differ by
    no more than the nodes' block times can explain."""
    if not (isinstance(real, str) and isinstance(sim, str) and real.isdigit() and sim.isdigit()):
        return False
    for method, path, kind in TIME_DERIVED:
        if re.search(method, call.method) and re.search(path, where):
            a, b = int(real), int(sim)
            if kind == "seconds":
                return abs(a - b) <= TIME_SKEW_S
            return abs(a - b) <= max(1, max(a, b) * RELATIVE_SKEW)
    return False


# An L1 validator removed (SetL1ValidatorWeight to 0) gives its owner back what the continuous fee
# left of its balance, and that fee runs per second of chain time up to the removal block, which
# each node builds at its own wall-clock time. So the UTXO of that refund may hold a different
# amount on each node, by at most the fee of TIME_SKEW_S seconds, and so may the balances that
# count it. Differ.refunds names those txs (hex tx ID -> that bound, nAVAX); nothing else of the
# UTXO, and no other UTXO, may differ.
_AMOUNT = slice(74, 82)  # codec 2, tx ID 32, output index 4, asset ID 32, type ID 4, then the amount
_TRANSFER_OUTPUT = (7).to_bytes(4, "big")  # secp256k1fx.TransferOutput


def refund_amounts(real: Any, sim: Any) -> tuple[bytes, int, int] | None:
    """(tx ID, real amount, sim amount) of one transfer-output UTXO (hex, with its checksum) listed by
    both nodes, when the two differ in nothing but the amount (and so the checksum); else None."""
    if not (isinstance(real, str) and isinstance(sim, str) and real.startswith("0x") and sim.startswith("0x")):
        return None
    try:
        r, s = bytes.fromhex(real[2:]), bytes.fromhex(sim[2:])
    except ValueError:
        return None
    if len(r) != len(s) or len(r) < 90 or r[70:74] != _TRANSFER_OUTPUT:
        return None
    if r[:_AMOUNT.start] != s[:_AMOUNT.start] or r[_AMOUNT.stop:-4] != s[_AMOUNT.stop:-4]:
        return None
    return r[2:34], int.from_bytes(r[_AMOUNT], "big"), int.from_bytes(s[_AMOUNT], "big")


def _utxo_tx(item: Any) -> tuple[str, Any] | None:
    """(tx ID, sort key) of a listed UTXO: a hex UTXO (codec version, tx ID, output index, ...) or a
    {txID, outputIndex} object."""
    if isinstance(item, str) and item.startswith("0x") and len(item) >= 2 + 2 * 38:
        return item[6:70], item
    if isinstance(item, dict) and "txID" in item and "outputIndex" in item:
        return str(item["txID"]), item["outputIndex"]
    return None


def tx_runs_sorted(items: list[Any]) -> list[Any]:
    """`items` with each run of consecutive UTXOs of one tx sorted (runs stay where they are)."""
    out: list[Any] = []
    run: list[tuple[Any, Any]] = []
    run_tx: str | None = None
    for item in items:
        key = _utxo_tx(item)
        if key is None:
            return items
        if key[0] != run_tx:
            out += [it for _, it in sorted(run, key=lambda kv: kv[0])]
            run, run_tx = [], key[0]
        run.append((key[1], item))
    out += [it for _, it in sorted(run, key=lambda kv: kv[0])]
    return out


def _last_run(items: list[Any]) -> int:
    """Where the last run of one tx's UTXOs starts in `items` (len(items) when none can be told)."""
    keys = [_utxo_tx(item) for item in items]
    if not items or any(k is None for k in keys):
        return len(items)
    start = len(items) - 1
    while start > 0 and keys[start - 1][0] == keys[-1][0]:  # type: ignore[index]
        start -= 1
    return start


MAX_PAGE = 1024  # AvalancheGo's page size for getUTXOs when `limit` is 0, absent or larger


def page_limit(call: Call) -> int:
    params = call.body.get("params") if isinstance(call.body, dict) else None
    raw = params.get("limit") if isinstance(params, dict) else None
    try:
        limit = int(raw) if raw is not None else 0
    except (TypeError, ValueError):
        return MAX_PAGE
    return limit if 0 < limit <= MAX_PAGE else MAX_PAGE


def cut_run_matched(real: list[Any], sim: list[Any], limit: int) -> list[Any] | None:
    """`sim` with the last run of a full page (it may stop inside one tx's outputs, which the real
    node lists in Go's map order) replaced by the real node's, when both pages end with the same
    number of outputs of the same tx and differ nowhere else; None otherwise."""
    if not (len(real) == len(sim) == limit):
        return None
    r_at, s_at = _last_run(real), _last_run(sim)
    if r_at != s_at or r_at == len(real):
        return None
    if _utxo_tx(real[-1])[0] != _utxo_tx(sim[-1])[0]:  # type: ignore[index]
        return None
    if tx_runs_sorted(real[:r_at]) != tx_runs_sorted(sim[:s_at]) or len(set(map(str, sim[s_at:]))) != len(sim) - s_at:
        return None
    return sim[:s_at] + real[r_at:]


def _last_utxo_id(items: list[Any]) -> str | None:
    """The ID (`endIndex.utxo`) of the last hex UTXO listed."""
    if not items or not isinstance(items[-1], str):
        return None
    raw = bytes.fromhex(items[-1][2:])
    return id_to_str(utxo_id(raw[2:34], int.from_bytes(raw[34:38], "big")))


def _utxo_page_end_alike(real: Any, sim: Any, limit: int) -> bool:
    """Both pages list the same UTXOs up to the order of one tx's outputs (and which of them a full
    page stops at), and each page's `endIndex.utxo` is the ID of its own last listed UTXO."""
    try:
        r, s = real["result"], sim["result"]
        if (tx_runs_sorted(r["utxos"]) != tx_runs_sorted(s["utxos"])
                and cut_run_matched(r["utxos"], s["utxos"], limit) is None):
            return False
        return (r["endIndex"]["utxo"] == _last_utxo_id(r["utxos"])
                and s["endIndex"]["utxo"] == _last_utxo_id(s["utxos"]))
    except (KeyError, TypeError, ValueError, IndexError):
        return False


def allowed(call: Call, where: str, rules: tuple[Allowed, ...] = ALLOWED) -> str | None:
    for rule in rules:
        if re.search(rule.method, call.method) and re.search(rule.where, where):
            return rule.reason
    return None


def send(base: str, call: Call, body: Any, timeout: float = 30.0) -> Reply:
    url = base + call.path
    if body is None:
        req = urllib.request.Request(url, method="GET" if call.http_method == "POST" else call.http_method)
    else:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        headers = {"Content-Type": call.content_type} if call.content_type else {}
        req = urllib.request.Request(url, data=data, method=call.http_method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return Reply(resp.status, resp.headers.get("Content-Type", ""), resp.read())
    except urllib.error.HTTPError as err:
        return Reply(err.code, err.headers.get("Content-Type", ""), err.read())


def record_of(call: Call, real: Reply) -> dict[str, Any]:
    """A call and the real node's reply, as kept in tests/vectors/avalanchego_answers/."""
    return {"label": call.label, "path": call.path, "body": call.body, "http_method": call.http_method,
            "content_type": call.content_type, "status": real.status, "reply_content_type": real.content_type,
            "reply": real.body.decode(errors="replace"),
            **({"sim_body": call.sim_body} if call.sim_body is not None else {})}


def call_of(rec: dict[str, Any]) -> tuple[Call, Reply]:
    call = Call(rec["path"], rec["body"], label=rec["label"], sim_body=rec.get("sim_body"),
                http_method=rec["http_method"], content_type=rec["content_type"])
    return call, Reply(rec["status"], rec["reply_content_type"], rec["reply"].encode())


def _type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    names: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return names[type(v)]


@dataclass
class Differ:
    """Sends calls to both nodes and keeps every divergence and a count of what was compared."""

    real_url: str
    sim_url: str
    rules: tuple[Allowed, ...] = ALLOWED
    calls: int = 0
    fields: int = 0
    divergences: list[Divergence] = field(default_factory=list)
    allowed_hits: dict[str, int] = field(default_factory=dict)
    recording: list[dict[str, Any]] | None = None  # when a list: every call and the real node's reply
    refunds: dict[str, int] = field(default_factory=dict)  # see refund_amounts

    def both(self, call: Call) -> tuple[Reply, Reply]:
        real = send(self.real_url, call, call.body)
        sim = send(self.sim_url, call, call.sim_body if call.sim_body is not None else call.body)
        return real, sim

    def compare(self, call: Call) -> tuple[Any, Any]:
        """Send, compare, record; return both parsed bodies."""
        real, sim = self.both(call)
        if self.recording is not None:
            self.recording.append(record_of(call, real))
        return self.compare_replies(call, real, sim)

    def compare_replies(self, call: Call, real: Reply, sim: Reply) -> tuple[Any, Any]:
        self.calls += 1
        found: list[Divergence] = []
        self._leaf(call, "$status", real.status, sim.status, found)
        self._leaf(call, "$content-type", real.content_type.split(";")[0].strip().lower(),
                   sim.content_type.split(";")[0].strip().lower(), found)
        rj, sj = real.json(), sim.json()
        if rj is None or sj is None:
            self._leaf(call, "$body", real.body.decode(errors="replace").strip(),
                       sim.body.decode(errors="replace").strip(), found)
        else:
            walked = self._refunds_alike(call, rj, sj)  # the caller gets simnode's own reply (its cursor pages simnode)
            if (re.search(UTXO_LISTS[0][0], call.method) and _utxo_page_end_alike(rj, walked, page_limit(call))
                    and rj["result"]["endIndex"]["utxo"] != walked["result"]["endIndex"]["utxo"]):
                walked = copy.deepcopy(walked)
                walked["result"]["endIndex"]["utxo"] = rj["result"]["endIndex"]["utxo"]
                self._count("the last UTXO of a page is one of a tx's outputs, listed in Go's map order")
            self._walk(call, "$", rj, walked, found)
        self.divergences.extend(found)
        return rj, sj

    def _refunds_alike(self, call: Call, rj: Any, sj: Any) -> Any:
        """`sj`, with an L1 validator's refund (see refund_amounts) as the real node lists it where the
        two amounts differ by no more than the fee of the nodes' time skew: in a UTXO page, the UTXO;
        in platform.getBalance, each total that counts such UTXOs."""
        if not self.refunds:
            return sj
        try:
            if re.search(UTXO_LISTS[0][0], call.method):
                real_items, sim_items = rj["result"]["utxos"], sj["result"]["utxos"]
                by_prefix = {item[:2 + 2 * 38]: item for item in real_items if isinstance(item, str)}
                alike = list(sim_items)
                for i, item in enumerate(sim_items):
                    if not isinstance(item, str) or item[:2 + 2 * 38] not in by_prefix:
                        continue
                    amounts = refund_amounts(by_prefix[item[:2 + 2 * 38]], item)
                    if amounts and abs(amounts[1] - amounts[2]) <= self.refunds.get(amounts[0].hex(), -1):
                        alike[i] = by_prefix[item[:2 + 2 * 38]]
                if alike == sim_items:
                    return sj
                out = copy.deepcopy(sj)
                out["result"]["utxos"] = alike
            elif call.method == "platform.getBalance":
                bound = sum(self.refunds.get(id_from_str(u["txID"]).hex(), 0) for u in rj["result"]["utxoIDs"])
                if not bound:
                    return sj
                out = copy.deepcopy(sj)
                totals = [(out["result"], k, rj["result"]) for k in ("balance", "unlocked")]
                totals += [(out["result"][k], a, rj["result"][k]) for k in ("balances", "unlockeds")
                           for a in rj["result"][k]]
                changed = False
                for where, key, real in totals:
                    if where[key] != real[key] and abs(int(where[key]) - int(real[key])) <= bound:
                        where[key], changed = real[key], True
                if not changed:
                    return sj
            else:
                return sj
        except (KeyError, TypeError, ValueError, AttributeError):
            return sj
        self._count(f"an L1 validator's refund: the continuous fee of up to {TIME_SKEW_S} s of skew")
        return out

    def _count(self, reason: str) -> None:
        self.allowed_hits[reason] = self.allowed_hits.get(reason, 0) + 1

    def _leaf(self, call: Call, where: str, real: Any, sim: Any, found: list[Divergence]) -> None:
        self.fields += 1
        if real == sim and _type(real) == _type(sim):
            return
        if within_time_skew(call, where, real, sim):
            self._count(f"a value that follows from a block's time, within {TIME_SKEW_S} s of skew")
            return
        if _type(real) == _type(sim):
            reason = allowed(call, where, self.rules)
            if reason:
                self._count(reason)
                return
        found.append(Divergence(call, where, real, sim))

    def _walk(self, call: Call, where: str, real: Any, sim: Any, found: list[Divergence]) -> None:
        if isinstance(real, dict) and isinstance(sim, dict):
            self.fields += 1
            if list(real) != list(sim):
                missing = [k for k in real if k not in sim]
                extra = [k for k in sim if k not in real]
                if missing or extra:
                    found.append(Divergence(call, where + " keys", missing, extra))
                else:
                    found.append(Divergence(call, where + " key order", list(real), list(sim)))
            for k in real:
                if k in sim:
                    self._walk(call, f"{where}.{k}", real[k], sim[k], found)
            return
        if isinstance(real, list) and isinstance(sim, list):
            self.fields += 1
            if any(re.search(m, call.method) and re.search(w, where) for m, w in UNORDERED):
                real, sim = sorted(real, key=json.dumps), sorted(sim, key=json.dumps)
            elif any(re.search(m, call.method) and re.search(w, where) for m, w in UTXO_LISTS):
                cut = cut_run_matched(real, sim, page_limit(call)) if where == "$.result.utxos" else None
                if cut is not None and tx_runs_sorted(cut) != tx_runs_sorted(sim):
                    sim = cut
                    self._count("a full page stops inside one tx's outputs, listed in Go's map order")
                real, sim = tx_runs_sorted(real), tx_runs_sorted(sim)
            if len(real) != len(sim) and not allowed(call, where, self.rules):
                found.append(Divergence(call, where + " length", len(real), len(sim)))
            for i, (a, b) in enumerate(zip(real, sim)):
                self._walk(call, f"{where}[{i}]", a, b, found)
            return
        self._leaf(call, where, real, sim, found)

    def report(self, detail: bool = True) -> str:
        lines = [f"comparisons: {self.calls} calls, {self.fields} fields; divergences: {len(self.divergences)}"]
        for reason, n in sorted(self.allowed_hits.items()):
            lines.append(f"  allowed x{n}: {reason}")
        if detail:
            lines += ["  DIVERGENCE " + d.line() for d in self.divergences]
        return "\n".join(lines)
