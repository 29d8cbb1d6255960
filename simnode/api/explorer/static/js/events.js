// Known EVM events, decoded from a receipt's logs: the token standards' (ERC-20/721/1155), WAVAX's,
// Ownable's, the ICM TeleporterMessenger's and the Warp precompile's SendWarpMessage. `topic` is
// keccak256(sig) (tests/unit/test_explorer_events.py checks every one).

const MESSAGE = '(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes)';
const MESSAGE_FIELDS = ['messageNonce', 'originSenderAddress', 'destinationBlockchainID', 'destinationAddress',
  'requiredGasLimit', 'allowedRelayerAddresses', 'receipts', 'message'];
const FEE = '(address,uint256)';
const FEE_FIELDS = ['feeTokenAddress', 'amount'];

// [topic, standard, signature, [[name, indexed, tuple field names?]...]]
export const EVENTS = [
  ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'ERC-20', 'Transfer(address,address,uint256)', [['from', 1], ['to', 1], ['value', 0]]],
  ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'ERC-721', 'Transfer(address,address,uint256)', [['from', 1], ['to', 1], ['tokenId', 1]]],
  ['0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925', 'ERC-20', 'Approval(address,address,uint256)', [['owner', 1], ['spender', 1], ['value', 0]]],
  ['0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925', 'ERC-721', 'Approval(address,address,uint256)', [['owner', 1], ['approved', 1], ['tokenId', 1]]],
  ['0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31', 'ERC-721/1155', 'ApprovalForAll(address,address,bool)', [['owner', 1], ['operator', 1], ['approved', 0]]],
  ['0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62', 'ERC-1155', 'TransferSingle(address,address,address,uint256,uint256)', [['operator', 1], ['from', 1], ['to', 1], ['id', 0], ['value', 0]]],
  ['0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb', 'ERC-1155', 'TransferBatch(address,address,address,uint256[],uint256[])', [['operator', 1], ['from', 1], ['to', 1], ['ids', 0], ['values', 0]]],
  ['0x6bb7ff708619ba0610cba295a58592e0451dee2622938c8755667688daf3529b', 'ERC-1155', 'URI(string,uint256)', [['value', 0], ['id', 1]]],
  ['0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c', 'WAVAX', 'Deposit(address,uint256)', [['dst', 1], ['wad', 0]]],
  ['0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65', 'WAVAX', 'Withdrawal(address,uint256)', [['src', 1], ['wad', 0]]],
  ['0x8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0', 'Ownable', 'OwnershipTransferred(address,address)', [['previousOwner', 1], ['newOwner', 1]]],
  ['0x1eac640109dc937d2a9f42735a05f794b39a5e3759d681951d671aabbce4b104', 'ICM', 'BlockchainIDInitialized(bytes32)', [['blockchainID', 1]]],
  ['0x2a211ad4a59ab9d003852404f9c57c690704ee755f3c79d2c2812ad32da99df8', 'ICM', `SendCrossChainMessage(bytes32,bytes32,${MESSAGE},${FEE})`, [['messageID', 1], ['destinationBlockchainID', 1], ['message', 0, MESSAGE_FIELDS], ['feeInfo', 0, FEE_FIELDS]]],
  ['0xc1bfd1f1208927dfbd414041dcb5256e6c9ad90dd61aec3249facbd34ff7b3e1', 'ICM', `AddFeeAmount(bytes32,${FEE})`, [['messageID', 1], ['updatedFeeInfo', 0, FEE_FIELDS]]],
  ['0x292ee90bbaf70b5d4936025e09d56ba08f3e421156b6a568cf3c2840d9343e34', 'ICM', `ReceiveCrossChainMessage(bytes32,bytes32,address,address,${MESSAGE})`, [['messageID', 1], ['sourceBlockchainID', 1], ['deliverer', 1], ['rewardRedeemer', 0], ['message', 0, MESSAGE_FIELDS]]],
  ['0x34795cc6b122b9a0ae684946319f1e14a577b4e8f9b3dda9ac94c21a54d3188c', 'ICM', 'MessageExecuted(bytes32,bytes32)', [['messageID', 1], ['sourceBlockchainID', 1]]],
  ['0x4619adc1017b82e02eaefac01a43d50d6d8de4460774bc370c3ff0210d40c985', 'ICM', `MessageExecutionFailed(bytes32,bytes32,${MESSAGE})`, [['messageID', 1], ['sourceBlockchainID', 1], ['message', 0, MESSAGE_FIELDS]]],
  ['0xd13a7935f29af029349bed0a2097455b91fd06190a30478c575db3f31e00bf57', 'ICM', `ReceiptReceived(bytes32,bytes32,address,${FEE})`, [['messageID', 1], ['destinationBlockchainID', 1], ['relayerRewardAddress', 1], ['feeInfo', 0, FEE_FIELDS]]],
  ['0x3294c84e5b0f29d9803655319087207bc94f4db29f7927846944822773780b88', 'ICM', 'RelayerRewardsRedeemed(address,address,uint256)', [['redeemer', 1], ['asset', 1], ['amount', 0]]],
  ['0x56600c567728a800c0aa927500f831cb451df66a7af570eb4df4dfbf4674887d', 'Warp', 'SendWarpMessage(address,bytes32,bytes)', [['sourceAddress', 1], ['unsignedMessageID', 1], ['message', 0]]],
];

// ------------------------------------------------------------------ ABI types

// Split a comma-separated type list at the top level.
function splitTypes(s) {
  const out = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === ',' && depth === 0) { out.push(cur); cur = ''; continue; }
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

function parseType(t) {
  if (t.endsWith('[]')) return { kind: 'array', of: parseType(t.slice(0, -2)) };
  if (t.startsWith('(')) return { kind: 'tuple', of: splitTypes(t.slice(1, -1)).map(parseType) };
  return { kind: t };
}

const isDynamic = (t) => t.kind === 'bytes' || t.kind === 'string' || t.kind === 'array' || (t.kind === 'tuple' && t.of.some(isDynamic));

function word(hex, at) { return hex.slice(at * 2, at * 2 + 64); }
function uint(hex, at) { return BigInt('0x' + (word(hex, at) || '0')); }

function decodeStatic(t, w) {
  if (t.kind === 'address') return '0x' + w.slice(24);
  if (t.kind === 'bool') return BigInt('0x' + w) !== 0n;
  if (t.kind.startsWith('bytes')) return '0x' + w.slice(0, 2 * Number(t.kind.slice(5)));
  return BigInt('0x' + w).toString(); // uintN (and intN within range)
}

// Decode a value of type t at byte offset `at` of hex (no 0x); tuples and arrays as arrays.
function decodeAt(t, hex, at) {
  if (t.kind === 'tuple') return decodeList(t.of, hex, at);
  if (t.kind === 'array') {
    const n = Number(uint(hex, at));
    return decodeList(Array(n).fill(t.of), hex, at + 32);
  }
  if (t.kind === 'bytes' || t.kind === 'string') {
    const n = Number(uint(hex, at));
    const body = hex.slice((at + 32) * 2, (at + 32 + n) * 2);
    if (t.kind === 'bytes') return '0x' + body;
    return new TextDecoder().decode(new Uint8Array((body.match(/../g) || []).map((b) => parseInt(b, 16))));
  }
  return decodeStatic(t, word(hex, at));
}

function decodeList(types, hex, base) {
  let head = base;
  return types.map((t) => {
    let v;
    if (isDynamic(t)) v = decodeAt(t, hex, base + Number(uint(hex, head)));
    else v = t.kind === 'tuple' ? decodeList(t.of, hex, head) : decodeStatic(t, word(hex, head));
    head += t.kind === 'tuple' && !isDynamic(t) ? 32 * t.of.length : 32;
    return v;
  });
}

// ------------------------------------------------------------------ logs

// A log ({topics, data}) as {name, standard, signature, args: [[name, value, fields?]]}; null when unknown
// (or when its topics and data do not fit the event).
export function decodeLog(log) {
  const topics = log.topics || [];
  for (const [topic, standard, sig, params] of EVENTS) {
    if (topics[0] !== topic) continue;
    const indexedCount = params.filter((p) => p[1]).length;
    if (topics.length !== indexedCount + 1) continue;
    const types = splitTypes(sig.slice(sig.indexOf('(') + 1, -1)).map(parseType);
    try {
      const dataTypes = types.filter((_, i) => !params[i][1]);
      const data = decodeList(dataTypes, (log.data || '0x').slice(2), 0);
      let ti = 1;
      let di = 0;
      const args = params.map(([name, indexed, fields], i) => {
        const value = indexed ? (isDynamic(types[i]) ? topics[ti++] : decodeStatic(types[i], topics[ti++].slice(2))) : data[di++];
        return [name, value, fields, types[i].kind];
      });
      return { name: sig.slice(0, sig.indexOf('(')), standard, signature: sig, args };
    } catch {
      return null;
    }
  }
  return null;
}
