"""P-Chain txs for a node that is not in this process (`simnode replay --target URL`): the
P-Chain wallet (`vms.platform.builder.PBuilder`) over what the public API tells — UTXOs
(`platform.getUTXOs`, with `sourceChain` for imports), the dynamic fee (`platform.getFeeConfig`,
`platform.getFeeState`), the chain time (`platform.getTimestamp`) and subnet owners
(`platform.getSubnet`) — as a wallet like avalanchejs builds them against any AvalancheGo."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from ..codec import UTXO, OutputOwners, decode_utxo
from ..formats.address import parse_address
from ..formats.ids import ZERO_ID, id_from_str
from ..vms.platform import fees
from ..vms.platform import txs as t
from ..vms.platform.wallet import PBuilder
from .transport import Transport

PAGE = 1024


class RemotePlatform:
    """The few things PBuilder asks the VM, asked over HTTP once per tx built."""

    chain_id = ZERO_ID

    def __init__(self, transport: Transport, network_id: int, hrp: str) -> None:
        self.transport = transport
        self.network_id = network_id
        self.hrp = hrp
        call = transport.call
        self.avax_asset_id = id_from_str(call("P", "platform.getStakingAssetID", {})["assetID"])
        cfg = call("P", "platform.getFeeConfig", {})
        self.fee_config = fees.FeeConfig(
            weights=tuple(int(w) for w in cfg["weights"]), max_capacity=int(cfg["maxCapacity"]),  # type: ignore[arg-type]
            max_per_second=int(cfg["maxPerSecond"]), target_per_second=int(cfg["targetPerSecond"]),
            min_price=int(cfg["minPrice"]), excess_conversion_constant=int(cfg["excessConversionConstant"]))

    def gas_price(self) -> int:
        return int(self.transport.call("P", "platform.getFeeState", {})["price"])

    def next_block_time(self) -> int:
        """The next block's time as the target will give it: its chain time, or now when later."""
        stamp = self.transport.call("P", "platform.getTimestamp", {})["timestamp"]
        chain_time = int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp())
        return max(chain_time, int(time.time()))


class RemotePBuilder(PBuilder):
    """PBuilder reading the chain over the public API instead of the VM's state."""

    vm: RemotePlatform

    def _addresses(self) -> list[str]:
        from ..formats.address import format_address

        return [format_address("P", self.vm.hrp, a) for a in sorted(self.keys)]

    def _fetch(self, source: str | None = None) -> list[UTXO]:
        params: dict[str, Any] = {"addresses": self._addresses(), "limit": PAGE, "encoding": "hex"}
        if source is not None:
            params["sourceChain"] = source
        out = []
        while True:
            res = self.vm.transport.call("P", "platform.getUTXOs", params)
            out += [decode_utxo(bytes.fromhex(h[2:])[:-4], t.P_REGISTRY) for h in res["utxos"]]
            if int(res["numFetched"]) < PAGE:
                return out
            params["startIndex"] = res["endIndex"]

    def stored_utxos(self) -> dict[bytes, UTXO]:
        return {u.id: u for u in self._fetch()}

    def atomic_utxos(self, source_chain: bytes) -> list[UTXO]:
        from ..formats.ids import id_to_str

        return self._fetch(id_to_str(source_chain))

    def subnet_owner(self, subnet_id: bytes) -> OutputOwners | None:
        from ..formats.ids import id_to_str
        from .transport import ErrorReply

        try:
            sub = self.vm.transport.call("P", "platform.getSubnet", {"subnetID": id_to_str(subnet_id)})
        except ErrorReply:
            return None
        addrs = tuple(sorted(parse_address(a if a.startswith("P-") else "P-" + a)[2] for a in sub["controlKeys"]))
        return OutputOwners(int(sub.get("locktime", 0)), int(sub["threshold"]), addrs)
