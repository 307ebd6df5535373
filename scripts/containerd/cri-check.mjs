#!/usr/bin/env node
// A small CRI client for scripts/containerd/: checks that the containerd started by
// setup.sh answers the CRI, runs a real pod through it, and removes pods.
//
//   node scripts/containerd/cri-check.mjs status    Version, Status (runtime and network ready), images present
//   node scripts/containerd/cri-check.mjs smoke     a pod sandbox with an IP on the bridge, a busybox container
//                                                   that stays Running, one that exits 1, one serving HTTP to the host
//   node scripts/containerd/cri-check.mjs cleanup   stop and remove every pod sandbox (teardown.sh)
//
// Reads SHARDLET_CONTAINERD_SOCK, SHARDLET_BUSYBOX_IMAGE, SHARDLET_PAUSE_IMAGE,
// SHARDLET_CONTAINERD_DIR (defaults as in env.sh). Uses the project's @grpc/grpc-js.
import { mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';

const here = dirname(fileURLToPath(import.meta.url));
const SOCK = process.env.SHARDLET_CONTAINERD_SOCK || '/run/shardlet-ci/containerd.sock';
const DIR = process.env.SHARDLET_CONTAINERD_DIR || '/var/lib/shardlet-ci/containerd';
const REGISTRY = process.env.SHARDLET_REGISTRY || '127.0.0.1:5000';
const BUSYBOX = process.env.SHARDLET_BUSYBOX_IMAGE || `${REGISTRY}/busybox:1.35`;
const PAUSE = process.env.SHARDLET_PAUSE_IMAGE || `${REGISTRY}/pause:3.9`;
const SUBNET_PREFIX = '10.88.';

const def = protoLoader.loadSync(join(here, '../../proto/cri/api.proto'), {
  keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true,
});
const pkg = grpc.loadPackageDefinition(def).runtime.v1;
const channelOpts = { 'grpc.max_receive_message_length': 16 * 1024 * 1024 };
const runtime = new pkg.RuntimeService(`unix://${SOCK}`, grpc.credentials.createInsecure(), channelOpts);
const images = new pkg.ImageService(`unix://${SOCK}`, grpc.credentials.createInsecure(), channelOpts);

const timings = [];
function call(client, method, req, timeoutMs = 60_000) {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    client[method](req, { deadline: Date.now() + timeoutMs }, (err, res) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      timings.push([method, ms]);
      if (err) reject(Object.assign(new Error(`${method}: ${err.details || err.message} (code ${err.code})`), { code: err.code }));
      else resolve(res);
    });
  });
}
const rt = (m, r, t) => call(runtime, m, r, t);
const img = (m, r, t) => call(images, m, r, t);

function say(msg) { process.stdout.write(`[cri-check] ${msg}\n`); }

// After a (re)start containerd answers on its socket before its CRI service has
// recovered its state; until then every CRI call fails with "server is not
// initialized yet". Wait for it (up to 60 s) instead of failing the check.
async function versionOnceInitialized() {
  for (let i = 0; ; i++) {
    try {
      return await rt('Version', { version: 'v1' });
    } catch (e) {
      if (!/not initialized/.test(e.message) || i >= 300) throw e;
      await sleep(200);
    }
  }
}

async function status() {
  const v = await versionOnceInitialized();
  let conds = [];
  // The CRI loads the CNI config asynchronously after start: give NetworkReady a moment.
  for (let i = 0; i < 50; i++) {
    const s = await rt('Status', { verbose: false });
    conds = s.status?.conditions ?? [];
    if (conds.length && conds.every((c) => c.status)) break;
    await sleep(200);
  }
  const bad = conds.filter((c) => !c.status);
  if (!conds.length || bad.length) {
    throw new Error(`runtime not ready: ${bad.map((c) => `${c.type}=false (${c.reason}: ${c.message})`).join('; ') || 'no conditions'}`);
  }
  const present = [];
  for (const ref of [PAUSE, BUSYBOX]) {
    const r = await img('ImageStatus', { image: { image: ref } });
    if (!r.image?.id) throw new Error(`CRI does not see image ${ref}`);
    present.push(`${ref} (${(r.image.size / 1024 / 1024).toFixed(1)} MiB)`);
  }
  say(`${v.runtimeName} ${v.runtimeVersion}, CRI ${v.runtimeApiVersion}: ${conds.map((c) => `${c.type}=${c.status}`).join(' ')}; images ${present.join(', ')}`);
}

async function waitContainer(id, want, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { status: s } = await rt('ContainerStatus', { containerId: id });
    if (s.state === want) return s;
    if (Date.now() > end) throw new Error(`container ${s.metadata?.name} is ${s.state} (${s.reason} ${s.message}), wanted ${want}`);
    await sleep(50);
  }
}

async function smoke() {
  const uid = randomUUID();
  const name = `smoke-${uid.slice(0, 8)}`;
  const logDir = join(DIR, 'smoke-logs', `default_${name}_${uid}`);
  mkdirSync(logDir, { recursive: true });
  const labels = { 'io.kubernetes.pod.uid': uid, 'io.kubernetes.pod.name': name, 'io.kubernetes.pod.namespace': 'default', 'shardlet.dev/smoke': 'true' };
  const sandboxConfig = {
    metadata: { name, uid, namespace: 'default', attempt: 0 },
    hostname: name,
    logDirectory: logDir,
    dnsConfig: { servers: ['10.88.0.1'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] },
    labels,
    annotations: { 'shardlet.dev/purpose': 'setup.sh smoke test' },
    // what a kubelet with the cgroupfs driver passes for a BestEffort pod
    linux: { cgroupParent: `/kubepods/besteffort/pod${uid}`, securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } } },
  };
  let sandboxId;
  let leftover;
  try {
    const t0 = Date.now();
    ({ podSandboxId: sandboxId } = await rt('RunPodSandbox', { config: sandboxConfig }));
    const { status: ps } = await rt('PodSandboxStatus', { podSandboxId: sandboxId });
    const ip = ps.network?.ip;
    if (ps.state !== 'SANDBOX_READY') throw new Error(`sandbox state ${ps.state}`);
    if (!ip || !ip.startsWith(SUBNET_PREFIX)) throw new Error(`sandbox IP '${ip}' is not on the bridge subnet 10.88.0.0/16`);
    say(`sandbox ${sandboxId.slice(0, 12)} ready with IP ${ip} (cgroup parent ${sandboxConfig.linux.cgroupParent})`);

    const container = async (cname, args, resources = {}) => {
      mkdirSync(join(logDir, cname), { recursive: true });
      const { containerId } = await rt('CreateContainer', {
        podSandboxId: sandboxId,
        config: {
          metadata: { name: cname, attempt: 0 },
          image: { image: BUSYBOX },
          command: ['sh', '-c'],
          args,
          envs: [{ key: 'POD_NAME', value: name }],
          labels: { ...labels, 'io.kubernetes.container.name': cname },
          logPath: `${cname}/0.log`,
          linux: {
            resources: { cpuShares: 2, memoryLimitInBytes: 64 * 1024 * 1024, oomScoreAdj: 1000, ...resources },
            // as the kubelet sends for a v1 pod: own PID namespace, the pod's network and IPC
            securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } },
          },
        },
        sandboxConfig,
      });
      await rt('StartContainer', { containerId });
      return containerId;
    };

    // 1. stays running, prints "hi"
    const hi = await container('hi', ['echo hi; sleep 3600']);
    const hiStatus = await waitContainer(hi, 'CONTAINER_RUNNING');
    // 2. exits 1 (a Guaranteed-pod oom_score_adj of -997 must be accepted: clamped by restrict_oom_score_adj)
    const fails = await container('fails', ['echo bye >&2; exit 1'], { oomScoreAdj: -997 });
    const failed = await waitContainer(fails, 'CONTAINER_EXITED');
    if (failed.exitCode !== 1) throw new Error(`container 'fails' exited ${failed.exitCode}, wanted 1`);
    // 3. serves HTTP on the pod IP: the host reaches the pod over the bridge
    const web = await container('web', ['echo shardlet-ok > /tmp/index.html && exec httpd -f -p 8080 -h /tmp']);
    await waitContainer(web, 'CONTAINER_RUNNING');
    let body = '';
    for (let i = 0; i < 40 && body.trim() !== 'shardlet-ok'; i++) {
      try {
        const r = await fetch(`http://${ip}:8080/index.html`, { signal: AbortSignal.timeout(1000) });
        body = await r.text();
      } catch { await sleep(100); }
    }
    if (body.trim() !== 'shardlet-ok') throw new Error(`host could not fetch http://${ip}:8080/ from the pod (got '${body}')`);
    const elapsed = Date.now() - t0;

    await sleep(200);
    const hiLog = readFileSync(hiStatus.logPath, 'utf8');
    if (!/ stdout F hi\n/.test(hiLog)) throw new Error(`log ${hiStatus.logPath} lacks "hi": ${JSON.stringify(hiLog)}`);
    const failLog = readFileSync(failed.logPath, 'utf8');
    if (!/ stderr F bye\n/.test(failLog)) throw new Error(`log ${failed.logPath} lacks "bye": ${JSON.stringify(failLog)}`);
    const list = await rt('ListContainers', { filter: { podSandboxId: sandboxId } });
    const states = Object.fromEntries(list.containers.map((c) => [c.metadata.name, c.state]));
    say(`containers: hi ${states.hi} (log "hi"), fails ${states.fails} exit ${failed.exitCode} (log "bye" on stderr), web ${states.web} (host fetched "shardlet-ok" from ${ip}:8080); pod up in ${elapsed} ms`);
  } finally {
    if (sandboxId && process.env.SHARDLET_SMOKE_KEEP === '1') {
      say(`SHARDLET_SMOKE_KEEP=1: leaving sandbox ${sandboxId} in place`);
    } else if (sandboxId) {
      await rt('StopPodSandbox', { podSandboxId: sandboxId });
      await rt('StopPodSandbox', { podSandboxId: sandboxId }); // idempotent
      await rt('RemovePodSandbox', { podSandboxId: sandboxId });
      const left = await rt('ListPodSandbox', { filter: { id: sandboxId } });
      // Named after the finally block, which must not replace an error of the smoke test's own.
      if (left.items.length) leftover = new Error(`sandbox ${sandboxId} still listed after RemovePodSandbox`);
    }
    if (process.env.SHARDLET_SMOKE_KEEP !== '1') {
      rmSync(logDir, { recursive: true, force: true });
      // runc creates the missing parents of a cgroup path but never removes them; a
      // kubelet owns its pod cgroups. Remove the (now empty) pod cgroup we named.
      for (const root of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
        let ctrls;
        try { ctrls = root.endsWith('unified') ? [''] : readdirSync(root); } catch { continue; }
        for (const c of ctrls) {
          try { rmdirSync(join(root, c, sandboxConfig.linux.cgroupParent)); } catch { /* absent or not empty */ }
        }
      }
    }
  }
  if (leftover) throw leftover;
  const per = {};
  for (const [m, ms] of timings) (per[m] ??= []).push(ms);
  say(`call times (ms): ${Object.entries(per).map(([m, a]) => `${m} ${a.map((x) => x.toFixed(0)).join('/')}`).join(', ')}`);
  say('smoke test passed');
}

async function cleanup() {
  const { items } = await rt('ListPodSandbox', {});
  for (const s of items) {
    await rt('StopPodSandbox', { podSandboxId: s.id });
    await rt('RemovePodSandbox', { podSandboxId: s.id });
  }
  // containers whose sandbox is already gone
  const { containers } = await rt('ListContainers', {});
  for (const c of containers) {
    await rt('StopContainer', { containerId: c.id, timeout: 0 }).catch(() => {});
    await rt('RemoveContainer', { containerId: c.id }).catch(() => {});
  }
  say(`removed ${items.length} pod sandbox(es) and ${containers.length} stray container(s)`);
}

const mode = process.argv[2];
const modes = { status, smoke, cleanup };
if (!modes[mode]) {
  console.error('usage: cri-check.mjs status|smoke|cleanup');
  process.exit(2);
}
try {
  await modes[mode]();
  process.exit(0);
} catch (e) {
  console.error(`[cri-check] ${mode} FAILED against ${SOCK}: ${e.message}`);
  process.exit(1);
}
