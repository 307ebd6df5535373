// Dev tooling for tests and the bench: a localhost port that is free now and that the
// OS will not hand to an outgoing connection before the server that asked binds it.
// A port from port 0 comes from the ephemeral range, the same range the kernel picks
// client ports from: on a busy machine a test's own HTTP clients took such a port in
// the moment between this check and shardlet's bind (SHARDLET_LISTEN_FAILED). So the
// port is picked at random below the ephemeral range and checked by binding it.
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

const EPHEMERAL_RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';
/** Below this, ports are the well-known and registered ones of real services. */
const LOWEST_PICKED_PORT = 20_000;
const PICK_ATTEMPTS = 64;

export async function freePort(): Promise<number> {
  const highest = ephemeralRangeStart() - 1;
  for (let attempt = 0; attempt < PICK_ATTEMPTS && highest > LOWEST_PICKED_PORT; attempt++) {
    const port = LOWEST_PICKED_PORT + Math.floor(Math.random() * (highest - LOWEST_PICKED_PORT + 1));
    if ((await tryListen(port)) !== undefined) return port;
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error('no free localhost port');
  return port;
}

/** The first port of the kernel's ephemeral range (Linux's default when it cannot be read). */
function ephemeralRangeStart(): number {
  try {
    return Number(readFileSync(EPHEMERAL_RANGE_FILE, 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

/** Binds and closes `port` on 127.0.0.1; the port that was bound, or undefined when it was taken. */
async function tryListen(port: number): Promise<number | undefined> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!bound) return undefined;
  const { port: boundPort } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return boundPort;
}
