import { readFileSync } from 'node:fs';
const prof = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const dt = prof.timeDeltas; let total = 0;
const counts = new Map();
prof.samples.forEach((id, i) => { counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)); total += dt[i] ?? 0; });
const parent = new Map(); for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map(); const selfm = new Map();
for (const [id, t] of counts) {
  const seen = new Set();
  let cur = id; let first = true;
  while (cur !== undefined) { const n = byId.get(cur); const cf = n.callFrame; const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber}`; if (first) { selfm.set(key, (selfm.get(key) ?? 0) + t); first = false; } if (!seen.has(key)) { incl.set(key, (incl.get(key) ?? 0) + t); seen.add(key); } cur = parent.get(cur); }
}
console.log('total ms', Math.round(total / 1000));
console.log('--- inclusive');
for (const [k, t] of [...incl.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3]))) console.log((t / total * 100).toFixed(1).padStart(5) + '%', k);
console.log('--- self');
for (const [k, t] of [...selfm.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log((t / total * 100).toFixed(1).padStart(5) + '%', k);
