// The size of a charge's answer over many charges, in the language asked for: the answer carries
// the entry (its draws and resolution, rendered) and what changed, so its size varies with what
// the dice decide. Sets up Cerignola as ../shared/bench/tercio-load.js does (initiative, command
// and attach Chandieu to the Swiss first block), then charges and undoes CHARGES times.
//
// Usage: node answers.js PORT KEY CHARGES LANG   (LANG: en | it)
'use strict';
const { client, newGame, SETUP, CHARGE } = require('./client');

const [portS, key, chargesS, lang] = process.argv.slice(2);
const port = Number(portS), charges = Number(chargesS);
if (!port || !key || !charges || !lang) {
  console.error('usage: node answers.js PORT KEY CHARGES en|it');
  process.exit(2);
}
const { req, close } = client(port, { headers: { 'accept-language': lang } });

(async () => {
  const token = await newGame(req, key);
  for (const a of SETUP) {
    const s = await req('POST', `/api/s/${token}/actions`, JSON.stringify(a));
    if (s.status !== 200) throw new Error('setup: ' + s.status);
  }
  const charge = JSON.stringify(CHARGE);
  const all = [], steps = {};
  for (let i = 0; i < charges; i++) {
    const a = await req('POST', `/api/s/${token}/actions`, charge);
    if (a.status !== 200) throw new Error('charge: ' + a.status);
    all.push(a.bytes);
    const n = a.json.resolution.steps.length;
    (steps[n] = steps[n] || []).push(a.bytes);
    const u = await req('POST', `/api/s/${token}/undo`, null);
    if (u.status !== 200) throw new Error('undo: ' + u.status);
  }
  close();
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
