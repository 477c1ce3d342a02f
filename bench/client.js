// What the bench's Node scripts share: a JSON client of one server, and the Cerignola game the
// benchmarks play (../shared/bench/tercio-load.js's set-up: initiative, command and attach
// Chandieu to the Swiss first block, then the Swiss charge).
'use strict';
const http = require('http');

// A client of the server on `port`: `req(method, path, body, headers)` answers `{status, json,
// bytes, length}` (the body's bytes and characters); `headers` are sent with every request.
function client(port, { sockets = 1, headers = {} } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const req = (method, path, body, extra) => new Promise((resolve, reject) => {
    const h = Object.assign({ 'content-type': 'application/json' }, headers, extra || {});
    if (body != null) h['content-length'] = Buffer.byteLength(body);
    const r = http.request({ host: '127.0.0.1', port, method, path, agent, headers: h }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const buf = Buffer.concat(chunks);
        const text = buf.toString('utf8');
        let json = null;
        try { json = JSON.parse(text); } catch (e) { /* left null */ }
        resolve({ status: res.statusCode, json, bytes: buf.length, length: text.length });
      });
      res.on('error', reject);
    });
    r.on('error', reject);
    if (body != null) r.write(body);
    r.end();
  });
  return { req, close: () => agent.destroy() };
}

const SETUP = [{ action: 'initiative' }, { action: 'command', leader: 'chandieu' },
  { action: 'attach', leader: 'chandieu', unit: 'swiss-first-block' }];
const CHARGE = { action: 'charge', actor: 'swiss-first-block', target: 'spanish-pike-left', ground: 'obstacle' };

// Make a Cerignola game (seed 5) with the host `key`; answers its game master's token.
async function newGame(req, key) {
  const c = await req('POST', '/api/games',
    JSON.stringify({ scenario: 'el-gran-capitan/cerignola-1503', seed: 5 }),
    { authorization: 'Bearer ' + key });
  if (c.status !== 201) throw new Error('create: ' + c.status);
  return c.json.links.find((l) => l.role === 'game-master').url.split('/').pop();
}

module.exports = { client, newGame, SETUP, CHARGE };
