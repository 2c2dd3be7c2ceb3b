/**
 * Baseline of start-up: the smallest Node.js HTTP server, run with plain
 * `node -e` (no loader), so its start is the floor for any Node.js server.
 * PORT names the port; every request gets a fixed reply.
 */
export const MINIMAL_SERVER_SOURCE = `
require('node:http')
  .createServer((request, response) => { request.resume(); response.end('{"ok":true}') })
  .listen(Number(process.env.PORT), '127.0.0.1')
`
