// Records what the real kubectl puts on the wire, to make the golden bodies in
// test/fixtures/kubectl-protobuf/: kubectl talks plain HTTP, without credentials,
// to a recording proxy, which keeps every request (method, path, headers, body)
// and forwards it to a test API server as the admin (client certificate). Run after a build:
//   node dist/test/testapiserver/protobuf/capture-kubectl.js test/fixtures/kubectl-protobuf
// Each protobuf request body is saved as <name>.pb, and index.json lists every
// request with its Content-Type and Accept. Requests for resources this branch
// does not serve still get recorded: kubectl sends the body before it learns
// the answer is 404.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApiServer } from '../../../src/testapiserver/index.js';

const run = promisify(execFile);

/**
 * The kubectl commands whose bodies become fixtures, in order: name → arguments.
 * BINARY_FILE and SETUP_DIR stand for files the tool writes first.
 */
export const CAPTURED_COMMANDS: Array<[string, string[]]> = [
  ['setup', ['apply', '-f', 'SETUP_DIR']],
  ['create-secret', ['create', 'secret', 'generic', 's1', '--from-literal=username=admin', '--from-literal=empty=', '--from-file=blob=BINARY_FILE', '--type=example.com/basic', '--namespace=default']],
  ['create-configmap', ['create', 'configmap', 'c1', '--from-literal=mode=fast', '--from-literal=greeting=grüße', '--from-file=blob=BINARY_FILE']],
  ['create-deployment', ['create', 'deployment', 'web', '--image=busybox:1.36', '--replicas=3', '--port=8080', '--', 'sleep', '3600']],
  ['create-rolebinding', ['create', 'rolebinding', 'rb1', '--clusterrole=view', '--user=alice', '--group=devs', '--serviceaccount=default:builder']],
  ['create-role', ['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods,pods/log', '--resource-name=web']],
  ['create-clusterrolebinding', ['create', 'clusterrolebinding', 'crb1', '--clusterrole=edit', '--user=bob']],
  ['auth-can-i-create-pods', ['auth', 'can-i', 'create', 'pods', '--namespace=default']],
  ['auth-can-i-nodes-proxy', ['auth', 'can-i', 'get', 'nodes', '--subresource=proxy']],
  ['create-namespace', ['create', 'namespace', 'team-a']],
  ['create-serviceaccount', ['create', 'serviceaccount', 'builder']],
  ['create-token', ['create', 'token', 'builder', '--duration=1h', '--audience=https://example.com']],
  ['create-service', ['create', 'service', 'clusterip', 'api', '--tcp=443:8443', '--tcp=80:http']],
  ['create-quota', ['create', 'quota', 'q1', '--hard=cpu=1500m,memory=1Gi,pods=10']],
  ['certificate-approve', ['certificate', 'approve', 'csr1']],
  ['drain', ['drain', 'node-1', '--force', '--grace-period=0', '--timeout=10s']],
];

interface Recorded {
  name: string;
  method: string;
  path: string;
  contentType?: string;
  accept?: string;
  bodyFile?: string;
  bodyBytes: number;
}

/** A node, a pod on it (for drain's eviction) and a pending CSR (for certificate approve). */
async function writeSetupManifests(work: string): Promise<string> {
  const dir = path.join(work, 'setup');
  await mkdir(dir);
  const keyFile = path.join(work, 'csr.key');
  await writeFile(keyFile, generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'sec1', format: 'pem' }));
  const { stdout: pem } = await run('openssl', ['req', '-new', '-key', keyFile, '-subj', '/O=system:nodes/CN=system:node:node-1']);
  const manifests = [
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'busybox:1.36' }] } },
    {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'csr1' },
      spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], expirationSeconds: 86400 },
    },
  ];
  for (const [index, manifest] of manifests.entries()) await writeFile(path.join(dir, `${index}.json`), JSON.stringify(manifest));
  return dir;
}

async function main(outDir: string): Promise<void> {
  const server = await startTestApiServer({ defaultNodeName: 'node-1', autoApproveCsrs: false });
  const credentials = await server.clientCredentials({ user: 'admin' });
  const work = await mkdtemp(path.join(tmpdir(), 'shardlet-capture-'));
  await mkdir(outDir, { recursive: true });
  const recorded: Recorded[] = [];
  let current = 'setup';
  let bodyCount = 0;

  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry: Recorded = { name: current, method: req.method ?? '', path: req.url ?? '', contentType: req.headers['content-type'], accept: req.headers.accept, bodyBytes: body.length };
      if (body.length > 0 && entry.contentType?.startsWith('application/vnd.kubernetes.protobuf')) {
        entry.bodyFile = `${current}${bodyCount++ === 0 ? '' : `-${bodyCount}`}.pb`;
        void writeFile(path.join(outDir, entry.bodyFile), body);
      }
      recorded.push(entry);
      const upstream = https.request(new URL(req.url ?? '/', server.url), {
        method: req.method, headers: { ...req.headers, host: new URL(server.url).host }, ca: credentials.caPem, cert: credentials.certPem, key: credentials.keyPem, agent: false,
      }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  const kubeconfig = path.join(work, 'kubeconfig');
  await writeFile(kubeconfig, [
    'apiVersion: v1', 'kind: Config',
    `clusters: [{name: capture, cluster: {server: "http://127.0.0.1:${port}"}}]`,
    'users: [{name: admin, user: {}}]',
    'contexts: [{name: capture, context: {cluster: capture, user: admin, namespace: default}}]',
    'current-context: capture', '',
  ].join('\n'));
  const binaryFile = path.join(work, 'blob.bin');
  await writeFile(binaryFile, Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a, 0x6b, 0x38, 0x73, 0x00]));
  const setupDir = await writeSetupManifests(work);

  try {
    for (const [name, args] of CAPTURED_COMMANDS) {
      current = name;
      bodyCount = 0;
      const argv = args.map((a) => a.replace('BINARY_FILE', binaryFile).replace('SETUP_DIR', setupDir));
      const result = await run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', path.join(work, 'cache'), ...argv]).catch((err: { stdout?: string; stderr?: string }) => err);
      console.log(`${name}: ${(result.stdout ?? '').trim()} ${(result.stderr ?? '').trim()}`);
    }
  } finally {
    await writeFile(path.join(outDir, 'index.json'), `${JSON.stringify(recorded, null, 2)}\n`);
    proxy.close();
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  main(process.argv[2] ?? 'test/fixtures/kubectl-protobuf').catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
