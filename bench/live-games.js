// See live-games.sh. Usage: node live-games.js PORT KEY SERVER_PID GAMES
'use strict';
const http = require('http');
const fs = require('fs');
const [portS, key, pidS, gamesS] = process.argv.slice(2);
const port = Number(portS), games = Number(gamesS);
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pidS}/status`, 'utf8'))[1]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
function req(method, path, body, headers) {
  return new Promise((resolve, reject) => {
    const h = Object.assign({ 'content-type': 'application/json' }, headers || {});
    if (body != null) h['content-length'] = Buffer.byteLength(body);
    const r = http.request({ host: '127.0.0.1', port, method, path, agent, headers: h }, (res) => {
      const c = []; res.on('data', (x) => c.push(x));
      res.on('end', () => { const t = Buffer.concat(c).toString(); let j = null; try { j = JSON.parse(t); } catch (e) {} resolve({ status: res.statusCode, json: j, bytes: t.length }); });
    });
    r.on('error', reject); if (body != null) r.write(body); r.end();
  });
}
const SETUP = [{ action: 'initiative' }, { action: 'command', leader: 'chandieu' },
  { action: 'attach', leader: 'chandieu', unit: 'swiss-first-block' },
  { action: 'charge', actor: 'swiss-first-block', target: 'spanish-pike-left', ground: 'obstacle' }];
(async () => {
  const start = rss();
  const tokens = [];
  for (let i = 0; i < games; i++) {
    const c = await req('POST', '/api/games', JSON.stringify({ scenario: 'el-gran-capitan/cerignola-1503', seed: 5 }), { authorization: 'Bearer ' + key });
    if (c.status !== 201) throw new Error('create ' + c.status);
    const gm = c.json.links.find((l) => l.role === 'game-master').url.split('/').pop();
    for (const a of SETUP) { const r = await req('POST', `/api/s/${gm}/actions`, JSON.stringify(a)); if (r.status !== 200) throw new Error('action ' + r.status); }
    tokens.push(gm);
  }
  let viewBytes = 0;
  for (const t of tokens) { const v = await req('GET', `/api/s/${t}`, null); if (v.status !== 200) throw new Error('view ' + v.status); viewBytes += v.bytes; }
  const end = rss();
  console.log(JSON.stringify({ games, rss_start_mb: +(start / 1024).toFixed(1), rss_mb: +(end / 1024).toFixed(1), per_game_kb: +((end - start) / games).toFixed(1), avg_view_bytes: Math.round(viewBytes / games) }));
  agent.destroy();
})().catch((e) => { console.error(e); process.exit(1); });
