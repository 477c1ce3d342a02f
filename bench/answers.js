// The size of a charge's answer over many charges, in the language asked for: the answer carries
// the entry (its draws and resolution, rendered) and what changed, so its size varies with what
// the dice decide. Sets up Cerignola as ../shared/bench/tercio-load.js does (initiative, command
// and attach Chandieu to the Swiss first block), then charges and undoes CHARGES times.
//
// Usage: node answers.js PORT KEY CHARGES LANG   (LANG: en | it)
'use strict';
const http = require('http');

const [portS, key, chargesS, lang] = process.argv.slice(2);
const port = Number(portS), charges = Number(chargesS);
if (!port || !key || !charges || !lang) {
  console.error('usage: node answers.js PORT KEY CHARGES en|it');
  process.exit(2);
}
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function req(method, path, body, headers) {
  return new Promise((resolve, reject) => {
    const h = Object.assign({ 'content-type': 'application/json', 'accept-language': lang }, headers || {});
    if (body != null) h['content-length'] = Buffer.byteLength(body);
    const r = http.request({ host: '127.0.0.1', port, method, path, agent, headers: h }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const buf = Buffer.concat(chunks);
        resolve({ status: res.statusCode, bytes: buf.length, json: JSON.parse(buf.toString('utf8') || 'null') });
      });
      res.on('error', reject);
    });
    r.on('error', reject);
    if (body != null) r.write(body);
    r.end();
  });
}

(async () => {
  const c = await req('POST', '/api/games',
    JSON.stringify({ scenario: 'el-gran-capitan/cerignola-1503', seed: 5 }),
    { authorization: 'Bearer ' + key });
  if (c.status !== 201) throw new Error('create: ' + c.status);
  const token = c.json.links.find((l) => l.role === 'game-master').url.split('/').pop();
  for (const a of [{ action: 'initiative' }, { action: 'command', leader: 'chandieu' },
    { action: 'attach', leader: 'chandieu', unit: 'swiss-first-block' }]) {
    const s = await req('POST', `/api/s/${token}/actions`, JSON.stringify(a));
    if (s.status !== 200) throw new Error('setup: ' + s.status);
  }
  const CHARGE = JSON.stringify({ action: 'charge', actor: 'swiss-first-block', target: 'spanish-pike-left', ground: 'obstacle' });
  const all = [], steps = {};
  for (let i = 0; i < charges; i++) {
    const a = await req('POST', `/api/s/${token}/actions`, CHARGE);
    if (a.status !== 200) throw new Error('charge: ' + a.status);
    all.push(a.bytes);
    const n = a.json.resolution.steps.length;
    (steps[n] = steps[n] || []).push(a.bytes);
    const u = await req('POST', `/api/s/${token}/undo`, null);
    if (u.status !== 200) throw new Error('undo: ' + u.status);
  }
  agent.destroy();
  const stat = (v) => {
    const s = v.slice().sort((x, y) => x - y);
    return {
      charges: s.length, min: s[0], p50: s[Math.floor(s.length / 2)], max: s[s.length - 1],
      mean: Math.round(s.reduce((x, y) => x + y, 0) / s.length),
      over_2048: s.filter((b) => b > 2048).length,
    };
  };
  const by_steps = {};
  for (const [n, v] of Object.entries(steps)) by_steps[n] = stat(v);
  console.log(JSON.stringify(Object.assign({ lang }, stat(all), { by_steps })));
})().catch((e) => { console.error(e); process.exit(1); });
