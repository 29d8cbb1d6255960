// The Webhooks API of a running simnode through the real @avalanche-sdk/chainkit 0.3.13 (its zod
// schemas check every request and answer), and its validateWebhook over deliveries a receiver got.
// usage:
//   node chainkit_webhooks.mjs api <node base URL> <JSON {url, chainId, address, pAddress, nodeId}>
//   node chainkit_webhooks.mjs validate <node base URL> <file of JSON {secret, deliveries: [{body, signature}]}>
// -> one JSON line
import { readFileSync } from "node:fs";
import { chainkitForNode } from "./chainkit_node.mjs";

const [mode, base, arg] = process.argv.slice(2);
const sdk = chainkitForNode(base);

async function walk(pages, key) {
  const items = [];
  for await (const page of pages) items.push(...page.result[key]);
  return items;
}

async function api({ url, chainId, address, pAddress, nodeId }) {
  const wh = sdk.webhooks;
  const evm = await wh.create({ eventType: "address_activity", url, chainId, name: "chainkit",
    metadata: { addresses: [address] }, includeLogs: true, includeInternalTxs: true });
  const primary = await wh.create({ eventType: "primary_network_address_activity", url, network: "fuji",
    chainId: "p-chain", metadata: { keyType: "addresses", keys: [pAddress],
      subEvents: { addressActivitySubEvents: ["balance_change", "reward_distribution"] } } });
  const validator = await wh.create({ eventType: "validator_activity", url, network: "fuji",
    metadata: { keyType: "nodeId", keys: [nodeId], subEvents: { validatorActivitySubEvents: ["validator_stake"] } } });
  const out = {
    evm, primary, validator,
    got: await wh.get({ id: evm.id }),
    updated: await wh.update({ id: evm.id, updateWebhookRequest: { description: "via chainkit", includeLogs: false } }),
    added: await wh.addresses.add({ id: evm.id,
      addressesChangeRequest: { addresses: ["0x00000000000000000000000000000000000000Aa"] } }),
    addresses: await walk(await wh.addresses.list({ id: evm.id, pageSize: 1 }), "addresses"),
    removed: await wh.addresses.remove({ id: evm.id,
      addressesChangeRequest: { addresses: ["0x00000000000000000000000000000000000000Aa"] } }),
    listed: await walk(await wh.list({ pageSize: 1 }), "webhooks"),
    active: (await wh.list({ status: "active" })).result.webhooks.length,
    secret: await wh.getSharedSecret(),
    rotated: await wh.generateOrRotateSharedSecret(),
    deactivated: await wh.deactivate({ id: validator.id }),
  };
  try {
    await wh.create({ eventType: "address_activity", url: "ftp://127.0.0.1/x", chainId, metadata: { addresses: [] } });
    out.badUrl = "accepted";
  } catch (e) {
    out.badUrl = { name: e.constructor.name, message: e.message };
  }
  try {
    await wh.get({ id: "no-such-webhook" });
    out.missing = "found";
  } catch (e) {
    out.missing = { name: e.constructor.name, message: e.message };
  }
  return out;
}

async function validate(file) {
  const { secret, deliveries } = JSON.parse(readFileSync(file, "utf8"));
  const results = [];
  for (const { body, signature } of deliveries) {
    try {
      const parsed = await sdk.validateWebhook({ request: { body, method: "POST", url: "http://127.0.0.1/hook",
        headers: { "content-type": "application/json", "x-signature": signature } }, secret });
      results.push({ ok: true, messageId: parsed.messageId, eventType: parsed.eventType,
        txHash: parsed.event.transaction.txHash, logs: parsed.event.logs?.length ?? null });
    } catch (e) {
      results.push({ ok: false, name: e.constructor.name, message: String(e.message).slice(0, 300) });
    }
  }
  return { results };
}

const out = mode === "api" ? await api(JSON.parse(arg)) : await validate(arg);
console.log(JSON.stringify(out));
