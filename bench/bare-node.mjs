/**
 * The platform's ceiling for bench/cache.mjs: bare node:http sending one gzip Buffer with a
 * fixed set of headers, no routing, no cache. argv: the body's file, and optionally a JSON file
 * of header lines to send instead (our hit's own, so the ceiling is measured for the same answer).
 * Prints its URL.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.argv[2]);
const headers = process.argv[3]
  ? JSON.parse(readFileSync(process.argv[3], 'utf8'))
  : [
      'content-type',
      'application/json; charset=utf-8',
      'content-encoding',
      'gzip',
      'content-length',
      String(body.length),
      'vary',
      'Accept-Encoding',
      'cache-control',
      'public, max-age=2',
    ];
// Header lines given with another body's length would frame every answer wrong (wrk's timeouts and errors).
const lengthAt = headers.findIndex((name, i) => i % 2 === 0 && name.toLowerCase() === 'content-length');
const length = lengthAt < 0 ? undefined : headers[lengthAt + 1];
if (length !== undefined && Number(length) !== body.length)
  throw new Error(`content-length ${length} given for a body of ${body.length} bytes`);
const server = createServer((_request, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.once('SIGTERM', () => process.exit(0));
