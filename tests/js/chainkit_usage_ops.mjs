// The export operations, usage metrics and logs, validators:getAddresses and the three deprecated
// EVM routes of a running simnode through the real @avalanche-sdk/chainkit 0.3.13 (zod-validated
// requests and responses), set up by chainkit_node.mjs, all calls with one API key.
// usage: node chainkit_usage_ops.mjs <node base URL> <JSON {apiKey, address, pAddress}>  -> one JSON line
import { chainkitForNode } from "./chainkit_node.mjs";
import { BadRequestError, NotFoundError } from "@avalanche-sdk/chainkit/models/errors";

const [base, argsJson] = process.argv.slice(2);
const { apiKey, address, pAddress } = JSON.parse(argsJson);
const sdk = chainkitForNode(base, { apiKey });

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

async function walk(pages, key, most = 50) {
  const items = [];
  let count = 0;
  for await (const page of pages) {
    items.push(...page.result[key]);
    count += 1;
    if (count >= most) break;
  }
  return { items, pages: count };
}

async function finished(operationId) {
  const states = [];
  for (let i = 0; i < 200; i += 1) {
    const op = await sdk.data.operations.getResult({ operationId });
    states.push(op.operationStatus);
    if (op.operationStatus !== "RUNNING") return { op, states };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`operation ${operationId} still RUNNING`);
}

async function exported(request) {
  const created = await sdk.data.operations.exportTransactions(request);
  const { op, states } = await finished(created.operationId);
  const csv = op.metadata?.downloadUrl ? await (await fetch(op.metadata.downloadUrl)).text() : null;
  return { created, op, states, csv };
}

const evm = sdk.data.evm;
const out = {
  allBlocks: (await evm.chains.listAllLatestBlocks({ pageSize: 2, network: "testnet" })).result,
  allTxs: (await evm.chains.listAllLatestTransactions({ pageSize: 2, status: "success" })).result,
  addressChains: await evm.chains.getAddressChains({ address }),
  validatorAddresses: await walk(await sdk.metrics.subnets.getValidators(
    { subnetId: "11111111111111111111111111111111LpoYY", pageSize: 2, network: "fuji" }), "addresses"),
  evmExport: await exported({ type: "TRANSACTION_EXPORT_EVM", firstDate: "2020-01-01", lastDate: "2099-12-31",
                              options: { addresses: [address], includeChains: ["43112"] } }),
  stakingExport: await exported({ type: "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING", firstDate: "2020-01-01",
                                  lastDate: "2099-12-31", options: { addresses: [pAddress], includeChains: ["p-chain"] } }),
  failedExport: await exported({ type: "TRANSACTION_EXPORT_EVM", firstDate: "2020-01-01", lastDate: "2020-01-02",
                                 options: { addresses: [address], includeChains: ["777"] } }),
  badOperation: await errorName(sdk.data.operations.getResult({ operationId: "not-a-uuid" })),
  unknownOperation: await errorName(sdk.data.operations.getResult({ operationId: "00000000-0000-4000-8000-000000000000" })),
  badExport: await errorName(sdk.data.operations.exportTransactions(
    { type: "TRANSACTION_EXPORT_EVM", firstDate: "2020-01-02", lastDate: "2020-01-01",
      options: { addresses: [address], includeChains: ["43112"] } })),
};
// the usage routes last: they report the calls above
Object.assign(out, {
  logs: await walk(await sdk.data.usageMetrics.getLogs({ pageSize: 5 }), "logs", 3),
  usage: await sdk.data.usageMetrics.getUsage({ groupBy: "requestPath", timeInterval: "daily" }),
  usageByCode: await sdk.data.usageMetrics.getUsage({ groupBy: "responseCode", requestType: "data" }),
  rpcUsage: await sdk.data.usageMetrics.getRpcUsageMetrics({ groupBy: "rpcMethod", timeInterval: "hourly" }),
  subnetRpcUsage: await sdk.data.usageMetrics.getSubnetRpcUsage({ groupBy: "rpcMethod" }),
  otherOrg: await errorName(sdk.data.usageMetrics.getUsage({ orgId: "someone-else" })),
  badInterval: await errorName(sdk.data.usageMetrics.getUsage({ startTimestamp: 10, endTimestamp: 5 })),
});
console.log(JSON.stringify(out));
