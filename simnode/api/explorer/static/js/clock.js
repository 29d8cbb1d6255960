// The node's clock (simnode.getTime): shown in the header, and the "now" of every relative time
// and metrics range (a virtual clock can be anywhere).

import { simnode } from './api.js';
import { isoTime, refreshTimes, setNodeTime } from './format.js';

let first = null;

export async function refreshClock() {
  const t = await simnode('getTime');
  setNodeTime(Number(t.timestamp));
  const el = document.getElementById('node-time');
  el.textContent = isoTime(Number(t.timestamp));
  el.dataset.ts = t.timestamp;
  refreshTimes(document.getElementById('app'));
  return Number(t.timestamp);
}

// Resolves once the node's time has been read at least once.
export function clockReady() {
  if (!first) first = refreshClock();
  return first;
}
