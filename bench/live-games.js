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
    const c = await req('POST', '/api/games', JSON.stringify({ scenario: 'el-gran-capitan/cerignola-1503', seed: 5 }), { authorization: 'Bearer ' + key });
    if (c.status !== 201) throw new Error('create ' + c.status);
    tokens.push(c.json.links.find((l) => l.role === 'game-master').url.split('/').pop());
  }
  out.make_cpu_ms = +((cpu() - c0) / games).toFixed(3);
  for (const a of SETUP) {
    c0 = cpu();
    for (const t of tokens) { const r = await req('POST', `/api/s/${t}/actions`, JSON.stringify(a)); if (r.status !== 200) throw new Error('action ' + r.status); }
    out[`${a.action}_cpu_ms`] = +((cpu() - c0) / games).toFixed(3);
  }
  let viewBytes = 0;
  for (const t of tokens) { const v = await req('GET', `/api/s/${t}`, null); if (v.status !== 200) throw new Error('view ' + v.status); viewBytes += v.bytes; }
  const end = rss();
  console.log(JSON.stringify(Object.assign(out, { rss_start_mb: +(start / 1024).toFixed(1), rss_mb: +(end / 1024).toFixed(1), per_game_kb: +((end - start) / games).toFixed(1), avg_view_bytes: Math.round(viewBytes / games) })));
  agent.destroy();
})().catch((e) => { console.error(e); process.exit(1); });
