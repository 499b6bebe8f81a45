// A merchant's callback endpoint for bench/callbacks.ts, in a process of its own so that answering
// callbacks does not compete with the worker being measured. It answers 204 at once and remembers
// when each webhook-id first arrived; GET /count says how many, GET /arrivals returns them and forgets them.
import { createServer } from 'node:http';

let arrivals: Record<string, number> = {};
let duplicates = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/count') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: Object.keys(arrivals).length }));
    return;
  }
  if (req.method === 'GET' && req.url === '/arrivals') {
    const body = JSON.stringify({ arrivals, duplicates });
    arrivals = {};
    duplicates = 0;
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    return;
  }
  const at = Date.now();
  const id = String(req.headers['webhook-id'] ?? '');
  req.resume();
  req.on('end', () => {
    if (id in arrivals) duplicates += 1;
    else arrivals[id] = at;
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});
