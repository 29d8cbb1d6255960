// The Data API's EVM routes of a running simnode through the real @avalanche-sdk/chainkit 0.3.13,
// which validates every request and response with its zod schemas: latest blocks and txs, a tx,
// an address's lists and balances, contract and NFT metadata, :reindex, the lists across chains,
// and page walks with pageSize 1 through the SDK's own page iterator; set up by chainkit_node.mjs.
// usage: node chainkit_evm_routes.mjs <node base URL> <JSON {address, token, nft, txHash}>  -> one JSON line
import { chainkitForNode } from "./chainkit_node.mjs";

const [base, argsJson] = process.argv.slice(2);
const { address, token, nft, txHash } = JSON.parse(argsJson);
const sdk = chainkitForNode(base);

async function walk(pages, key) {
  const items = [];
  let count = 0;
  for await (const page of pages) {
    items.push(...page.result[key]);
    count += 1;
  }
  return { items, pages: count };
}

const evm = sdk.data.evm;
const out = {
  blocks: (await evm.blocks.listLatest({ pageSize: 3 })).result,
  block: await evm.blocks.get({ blockId: "1" }),
  blockTxs: await evm.blocks.listTransactions({ blockId: "1" }),
  latestTxs: (await evm.transactions.listLatest({ pageSize: 4 })).result,
  failedTxs: (await evm.transactions.listLatest({ status: "failed" })).result,
  tx: await evm.transactions.get({ txHash }),
  txs: (await evm.address.transactions.list({ address, pageSize: 3, sortOrder: "asc" })).result,
  native: (await evm.address.transactions.listNative({ address, pageSize: 3 })).result,
  erc20: (await evm.address.transactions.listErc20({ address, startBlock: 1 })).result,
  erc721: (await evm.address.transactions.listErc721({ address })).result,
  erc1155: (await evm.address.transactions.listErc1155({ address })).result,
  internals: (await evm.address.transactions.listInternal({ address })).result,
  erc20Balances: (await evm.address.balances.listErc20({ address, currency: "usd" })).result,
  erc1155Balances: (await evm.address.balances.listErc1155({ address })).result,
  collectibles: (await evm.address.balances.listCollectibles({ address })).result,
  chains: await evm.address.chains.list({ address }),
  contract: await evm.contracts.getMetadata({ address: token }),
  deployment: await evm.contracts.getDeploymentTransaction({ address: token }),
  transfers: (await evm.contracts.listTransfers({ address: token })).result,
  nftTokens: (await sdk.data.nfts.list({ address: nft })).result,
  nft: await sdk.data.nfts.get({ address: nft, tokenId: "1" }),
  reindex: (await sdk.data.nfts.reindex({ address: nft, tokenId: "1" })) ?? "done",
  allBlocks: (await evm.blocks.listLatestAllChains({ pageSize: 2 })).result,
  allTxs: (await evm.transactions.listLatestAllChains({ pageSize: 2, network: "testnet" })).result,
  blockWalk: await walk(await evm.blocks.listLatest({ pageSize: 1 }), "blocks"),
  nativeWalk: await walk(await evm.address.transactions.listNative({ address, pageSize: 1 }), "transactions"),
};
console.log(JSON.stringify(out));
