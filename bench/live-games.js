// See live-games.sh. Usage: node live-games.js PORT KEY SERVER_PID GAMES
'use strict';
const fs = require('fs');
const { client, newGame, SETUP, CHARGE } = require('./client');
const [portS, key, pidS, gamesS] = process.argv.slice(2);
const port = Number(portS), games = Number(gamesS);
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pidS}/status`, 'utf8'))[1]);
const { req, close } = client(port, { sockets: 8 });
const ACTIONS = [...SETUP, CHARGE];
// The server's user + system CPU so far, in ms (/proc/PID/stat, fields 14 and 15).
const tck = Number(process.env.TCK || 100); // clock ticks a second (getconf CLK_TCK)
const cpu = () => {
  const f = fs.readFileSync(`/proc/${pidS}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / tck;
};
(async () => {
  const start = rss();
  const out = { games };
  // Made one after another, as compare.sh's load client makes its games; then each action in
  // turn on every game, so that the server's CPU is counted per game made and per action.
  const tokens = [];
  let c0 = cpu();
  for (let i = 0; i < games; i++) {
    tokens.push(await newGame(req, key));
  }
  out.make_cpu_ms = +((cpu() - c0) / games).toFixed(3);
  for (const a of ACTIONS) {
    c0 = cpu();
    for (const t of tokens) { const r = await req('POST', `/api/s/${t}/actions`, JSON.stringify(a)); if (r.status !== 200) throw new Error('action ' + r.status); }
    out[`${a.action}_cpu_ms`] = +((cpu() - c0) / games).toFixed(3);
  }
  let viewBytes = 0;
  for (const t of tokens) { const v = await req('GET', `/api/s/${t}`, null); if (v.status !== 200) throw new Error('view ' + v.status); viewBytes += v.length; }
  const end = rss();
  console.log(JSON.stringify(Object.assign(out, { rss_start_mb: +(start / 1024).toFixed(1), rss_mb: +(end / 1024).toFixed(1), per_game_kb: +((end - start) / games).toFixed(1), avg_view_bytes: Math.round(viewBytes / games) })));
  close();
})().catch((e) => { console.error(e); process.exit(1); });
