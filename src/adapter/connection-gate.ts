// Connection capacity of the metrics API, split by trust. kube-apiserver's aggregator reaches us with its
// front-proxy client certificate; anyone who can open a socket to the port can hold one without any. Node's
// `server.maxConnections` counts both alike, so 1,100 idle unauthenticated sockets left no room for a fresh
// aggregator connection, and every HPA in the cluster lost its metrics for as long as the flood lasted.
//
// Here a socket counts as untrusted from accept until its TLS handshake shows a client certificate that
// verifies (front-proxy or client CA); untrusted sockets have a small pool of their own, and a new one
// arriving at a full pool closes the oldest (an idle flood ages out, while a real client's handshake takes
// milliseconds). Trusted connections have --max-connections to themselves; one over it is closed right
// after its handshake and counted, as Node's cap counted it at accept.
import type { Server as NetServer, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface ConnectionGateOptions {
  /** Connections whose client certificate verifies (--max-connections). */
  maxTrusted: number;
  /** Sockets in or after a handshake without a verifying certificate (--max-untrusted-connections). */
  maxUntrusted: number;
  /** Whether the handshaken socket's client certificate verifies against the trust in force. */
  isTrusted(socket: TLSSocket): boolean;
  /** A trusted connection closed because maxTrusted were open. */
  onDropped(): void;
  /** The oldest untrusted socket closed to make room for a new one. */
  onEvicted(): void;
}

export interface ConnectionGate {
  counts(): { trusted: number; untrusted: number };
}

/** The socket's identity across the raw accept and the TLS handshake: its peer address and port. */
function peerKey(s: Socket): string | undefined {
  return s.remoteAddress === undefined || s.remotePort === undefined ? undefined : `${s.remoteAddress}:${s.remotePort}`;
}

/** Installs the gate on a TLS or HTTP/2 secure server (in place of `server.maxConnections`). */
export function gateConnections(server: NetServer, o: ConnectionGateOptions): ConnectionGate {
  if (!(Number.isInteger(o.maxTrusted) && o.maxTrusted >= 1)) throw new RangeError(`maxTrusted must be a positive integer, got ${o.maxTrusted}`);
  if (!(Number.isInteger(o.maxUntrusted) && o.maxUntrusted >= 1)) throw new RangeError(`maxUntrusted must be a positive integer, got ${o.maxUntrusted}`);
  // Insertion order is age: the first entry is the oldest untrusted socket.
  const untrusted = new Map<string, Socket>();
  const trusted = new Map<string, Socket>();
  server.on('connection', (raw: Socket) => {
    const key = peerKey(raw);
    if (key === undefined) {
      raw.destroy(); // already gone at accept
      return;
    }
    if (untrusted.size >= o.maxUntrusted) {
      const [oldestKey, oldest] = untrusted.entries().next().value as [string, Socket];
      untrusted.delete(oldestKey);
      oldest.destroy();
      o.onEvicted();
    }
    untrusted.set(key, raw);
    raw.once('close', () => {
      if (untrusted.get(key) === raw) untrusted.delete(key);
      if (trusted.get(key) === raw) trusted.delete(key);
    });
  });
  server.on('secureConnection', (tls: TLSSocket) => {
    const key = peerKey(tls);
    const raw = key === undefined ? undefined : untrusted.get(key);
    if (key === undefined || raw === undefined || !o.isTrusted(tls)) return;
    untrusted.delete(key);
    if (trusted.size >= o.maxTrusted) {
      tls.destroy();
      o.onDropped();
      return;
    }
    trusted.set(key, raw);
  });
  return { counts: () => ({ trusted: trusted.size, untrusted: untrusted.size }) };
}
