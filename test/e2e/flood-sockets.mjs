// The connection flood of connection-flood.test.ts, in a process of its own so that its thousands of
// handshakes never delay the test's own reads (the aggregator's stand-in) or their timing. Plain
// JavaScript so it needs no loader. argv: port, sockets, reopenPerSecond. Keeps `sockets` sockets open
// against 127.0.0.1:port and reopens each one closed, at most reopenPerSecond a second: even ones bare
// TCP that never send a ClientHello, odd ones a complete TLS handshake without a client certificate.
// Prints "opened <n> open <m>" every second; exits when its stdin closes (the test ended or died).
import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

const [port, count, perSecond] = process.argv.slice(2).map(Number);
const open = new Set();
let opened = 0;
let budget = perSecond;
setInterval(() => {
  budget = perSecond;
  process.stdout.write(`opened ${opened} open ${open.size}\n`);
}, 1000);
function openOne(i) {
  if (budget <= 0) {
    setTimeout(() => openOne(i), 50);
    return;
  }
  budget--;
  opened++;
  const s = i % 2 === 0 ? tcpConnect(port, '127.0.0.1') : tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false });
  open.add(s);
  s.on('error', () => {});
  s.on('close', () => {
    open.delete(s);
    setTimeout(() => openOne(i), 10);
  });
}
for (let i = 0; i < count; i++) openOne(i);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
