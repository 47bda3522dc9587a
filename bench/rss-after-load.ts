/**
 * Resident memory of Sculptor's single operation and of the lean hand-written handler, each idle
 * after start and then right after a load at 32 connections, one server after the other: what a
 * replica costs to keep, beside what it costs per call (single-op-ab.ts --alloc). The memory part
 * of `npm run bench` (memory.ts) measures the same and gives the verdict; this runs it alone.
 *
 *   npx node bench/rss-after-load.ts [--duration 15] [--connections 32]
 */
import { parseArgs } from 'node:util';
import { residentMemory } from './memory.ts';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '15' }, connections: { type: 'string', default: '32' } },
});
const measured = await residentMemory(Number(values.duration), Number(values.connections));
for (const [name, m] of Object.entries(measured)) {
  console.log(
    `${name}: idle ${m.idleMb.toFixed(0)} MB, after ${m.load.requests} calls at ${values.connections} connections ${m.afterMb.toFixed(0)} MB (${m.load.rps.toFixed(0)} req/s, failed ${m.load.non2xx + m.load.errors}); child processes ${m.helpers.count}, ${m.helpers.mb.toFixed(0)} MB of their own`,
  );
}
