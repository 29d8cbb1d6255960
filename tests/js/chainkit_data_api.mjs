// The Data API routes of a running simnode through the real @avalanche-sdk/chainkit 0.3.13, which
// validates every request and response with its zod schemas (data-api.md §6), set up by chainkit_node.mjs.
// usage: node chainkit_data_api.mjs <node base URL> <EVM address>   -> one JSON line
import { chainkitForNode } from "./chainkit_node.mjs";
import { BadRequestError, NotFoundError } from "@avalanche-sdk/chainkit/models/errors";

const [base, address] = process.argv.slice(2);
const sdk = chainkitForNode(base, { apiKey: "local-key" });

async function errorName(promise) {
  try {
    await promise;
    return "none";
  } catch (err) {
    if (err instanceof NotFoundError) return `NotFoundError: ${err.message}`;
    if (err instanceof BadRequestError) return `BadRequestError: ${err.message}`;
    return `${err.constructor.name}: ${err.message}`;
  }
}

const out = {
  health: await sdk.data.healthCheck(),
  live: await sdk.data.liveCheck(),
  chains: await sdk.data.evm.chains.list({ network: "testnet" }),
  nftChains: await sdk.data.evm.chains.list({ feature: "nftIndexing", network: "mainnet" }),
  teleporterChains: await sdk.data.evm.chains.list({ feature: "teleporter" }),
  chain: await sdk.data.evm.chains.get({}),
  native: await sdk.data.evm.address.balances.getNative({ address, currency: "usd" }),
  nativeAtGenesis: await sdk.data.evm.address.balances.getNative({ address, blockNumber: "0" }),
  unknownChain: await errorName(sdk.data.evm.chains.get({ chainId: "1234" })),
  badAddress: await errorName(sdk.data.evm.address.balances.getNative({ address: "0x1234" })),
};
console.log(JSON.stringify(out));
