// The e2e harness's port picker: ports must survive the seconds between picking and a binary's bind, which
// `listen(0)` ports did not (CI: Prometheus "bind: address already in use" under mocha --parallel).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, freePorts } from '../../e2e/harness/ports.ts';

const LOCKS = join(tmpdir(), 'ehpa-adapter-ports');
const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('e2e harness ports', () => {
  it('hands out distinct ports below the kernel\'s ephemeral range, each reserved by a lock file naming this process', async () => {
    const ports = await freePorts(40);
    expect(new Set(ports).size).to.equal(40);
    for (const p of ports) {
      expect(p).to.be.within(10_000, ephemeralLow - 1);
      expect(readFileSync(join(LOCKS, `${p}.lock`), 'utf8')).to.equal(String(process.pid));
    }
  });

  it('skips a port another live process has reserved, and takes over a dead owner\'s reservation', async () => {
    const first = await freePort();
    // The next two ports in the cursor's order: one reserved by a live process, one by a dead one.
    const live = first + 1 < ephemeralLow ? first + 1 : 10_000;
    const dead = live + 1 < ephemeralLow ? live + 1 : 10_000;
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const exited = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((r) => exited.once('exit', r));
    try {
      writeFileSync(join(LOCKS, `${live}.lock`), String(child.pid));
      writeFileSync(join(LOCKS, `${dead}.lock`), String(exited.pid));
      const next = await freePort();
      expect(next).to.not.equal(live);
      expect(next).to.equal(dead);
      expect(readFileSync(join(LOCKS, `${dead}.lock`), 'utf8')).to.equal(String(process.pid));
      expect(readFileSync(join(LOCKS, `${live}.lock`), 'utf8')).to.equal(String(child.pid));
    } finally {
      child.kill();
    }
  });

  it('skips a port something already listens on', async () => {
    const first = await freePort();
    const taken = first + 1 < ephemeralLow ? first + 1 : 10_000;
    const srv: Server = createServer();
    await new Promise<void>((r, j) => { srv.once('error', j); srv.listen(taken, '127.0.0.1', () => r()); });
    try {
      const next = await freePort();
      expect(next).to.not.equal(taken);
      expect(existsSync(join(LOCKS, `${next}.lock`))).to.equal(true);
    } finally {
      await new Promise((r) => srv.close(r));
    }
  });
});
