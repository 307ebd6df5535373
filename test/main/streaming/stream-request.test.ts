// The streaming endpoints' paths and queries, read as upstream's server.go routes
// and remotecommand / portforward options read them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parsePortForwardPorts,
  parseRunCommand,
  parseStreamOptions,
  parseStreamPath,
} from '../../../src/main/streaming/stream-request.js';

describe('parseStreamPath', () => {
  const cases: Array<[string, ReturnType<typeof parseStreamPath>]> = [
    ['/exec/default/web/main', { kind: 'exec', namespace: 'default', podName: 'web', podUid: '', containerName: 'main' }],
    ['/exec/default/web/1234-abcd/main', { kind: 'exec', namespace: 'default', podName: 'web', podUid: '1234-abcd', containerName: 'main' }],
    ['/attach/kube-system/dns/coredns', { kind: 'attach', namespace: 'kube-system', podName: 'dns', podUid: '', containerName: 'coredns' }],
    ['/portForward/default/web', { kind: 'portForward', namespace: 'default', podName: 'web', podUid: '', containerName: '' }],
    ['/portForward/default/web/uid-1', { kind: 'portForward', namespace: 'default', podName: 'web', podUid: 'uid-1', containerName: '' }],
    ['/portForward/default/web/', { kind: 'portForward', namespace: 'default', podName: 'web', podUid: '', containerName: '' }],
    ['/run/default/web/main', { kind: 'run', namespace: 'default', podName: 'web', podUid: '', containerName: 'main' }],
    ['/exec/default/my%20pod/main', { kind: 'exec', namespace: 'default', podName: 'my pod', podUid: '', containerName: 'main' }],
    ['/exec/default/web', undefined],
    ['/exec/default/web/a/b/c', undefined],
    ['/exec//web/main', undefined],
    ['/portForward/default', undefined],
    ['/logs/default/web/main', undefined],
    ['/exec/default/%E0%A4%A/main', undefined],
  ];
  for (const [path, expected] of cases) {
    it(`reads ${path}`, () => assert.deepEqual(parseStreamPath(path), expected));
  }
});

describe('parseStreamOptions', () => {
  it('takes "1" as true and anything else as false', () => {
    assert.deepEqual(parseStreamOptions(new URLSearchParams('stdin=1&stdout=1&stderr=true')), {
      stdin: true,
      stdout: true,
      stderr: false,
      tty: false,
    });
  });

  it('drops stderr with a TTY', () => {
    assert.deepEqual(parseStreamOptions(new URLSearchParams('stdout=1&stderr=1&tty=1')), { stdin: false, stdout: true, stderr: false, tty: true });
  });

  it('refuses a session without any stream, with upstream message and 400', () => {
    assert.deepEqual(parseStreamOptions(new URLSearchParams('tty=1&stderr=1')), {
      statusCode: 400,
      message: 'you must specify at least 1 of stdin, stdout, stderr',
    });
  });
});

describe('parsePortForwardPorts', () => {
  it('ignores ports over SPDY, where each stream names its port', () => {
    assert.deepEqual(parsePortForwardPorts(new URLSearchParams(''), false), []);
  });

  it('reads repeated and comma-separated ports for a websocket', () => {
    assert.deepEqual(parsePortForwardPorts(new URLSearchParams('port=80&port=8080,9090'), true), [80, 8080, 9090]);
  });

  it('refuses missing, empty, zero and out-of-range ports', () => {
    assert.equal((parsePortForwardPorts(new URLSearchParams(''), true) as { message: string }).message, 'query parameter "port" is required');
    assert.equal((parsePortForwardPorts(new URLSearchParams('port='), true) as { message: string }).message, 'query parameter "port" cannot be empty');
    assert.equal((parsePortForwardPorts(new URLSearchParams('port=0'), true) as { message: string }).message, 'port "0" must be > 0');
    assert.match((parsePortForwardPorts(new URLSearchParams('port=70000'), true) as { message: string }).message, /unable to parse "70000" as a port/);
    assert.match((parsePortForwardPorts(new URLSearchParams('port=http'), true) as { message: string }).message, /unable to parse "http" as a port/);
  });
});

describe('parseRunCommand', () => {
  it('splits cmd on spaces as upstream does (no quoting)', () => {
    assert.deepEqual(parseRunCommand(new URLSearchParams('cmd=cat+%2Fetc%2Fhostname')), ['cat', '/etc/hostname']);
    assert.deepEqual(parseRunCommand(new URLSearchParams('cmd=sh+-c+%27echo+hi%27')), ['sh', '-c', "'echo", "hi'"]);
  });
});
