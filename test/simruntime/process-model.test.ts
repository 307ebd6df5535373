// The simulated process's reading of a container's command line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { behaviourOf, stopOutcome, BARE_EXIT_RUN_MS } from '../../src/simruntime/process-model.js';

describe('process model', () => {
  const cases: Array<{ command: string[]; args?: string[]; exit?: { code: number; afterMs: number }; trap?: boolean }> = [
    { command: ['sh', '-c', 'sleep 1; exit 1'], exit: { code: 1, afterMs: 1000 } },
    { command: ['sh', '-c', 'exit 1'], exit: { code: 1, afterMs: BARE_EXIT_RUN_MS } },
    { command: ['sh'], args: ['-c', 'echo hi; exit 0'], exit: { code: 0, afterMs: BARE_EXIT_RUN_MS } },
    { command: ['sleep', '2'], exit: { code: 0, afterMs: 2000 } },
    { command: ['sleep', '0.5'], exit: { code: 0, afterMs: 500 } },
    { command: ['sleep', '1m'], exit: { code: 0, afterMs: 60_000 } },
    { command: ['true'], exit: { code: 0, afterMs: 10 } },
    { command: ['/bin/false'], exit: { code: 1, afterMs: 10 } },
    { command: ['sh', '-c', 'echo ready > /work/state'], exit: { code: 0, afterMs: BARE_EXIT_RUN_MS } },
    { command: ['/bin/bash'], args: ['-c', 'cp /a /b'], exit: { code: 0, afterMs: BARE_EXIT_RUN_MS } },
    { command: ['sleep', 'infinity'] },
    { command: ['sh', '-c', 'while true; do sleep 1; done'] },
    { command: [] },
    { command: ['nginx', '-g', 'daemon off;'] },
    { command: ['sh', '-c', "trap 'exit 0' TERM; sleep 3600"], exit: { code: 0, afterMs: 3_600_000 }, trap: true },
    { command: ['sh', '-c', 'trap "" SIGTERM; while :; do sleep 1; done'], trap: true },
    // critest's pause command and other statements that never end on their own.
    { command: ['sh', '-c', 'top'] },
    { command: ['sh', '-c', 'echo ready; tail -f /dev/null'] },
    { command: ['sh', '-c', 'dd if=/dev/zero of=/dev/null bs=20M'] },
    { command: ['sh', '-c', 'dd if=/dev/zero of=/tmp/x bs=1M count=1'], exit: { code: 0, afterMs: BARE_EXIT_RUN_MS } },
    // One-shot utilities run as the command end at once.
    { command: ['echo', 'hello World'], exit: { code: 0, afterMs: 10 } },
    { command: ['/bin/id', '-u'], exit: { code: 0, afterMs: 10 } },
  ];
  for (const { command, args = [], exit, trap = false } of cases) {
    it(`reads ${JSON.stringify([...command, ...args])}`, () => {
      const behaviour = behaviourOf(command, args);
      assert.deepEqual(behaviour.exit, exit);
      assert.equal(behaviour.ignoresSigterm, trap);
    });
  }

  it('stops on SIGTERM at once unless trapped, and kills at once with no grace', () => {
    const plain = behaviourOf(['sleep', '3600'], []);
    const trapped = behaviourOf(['sh', '-c', "trap 'echo' TERM; sleep 3600"], []);
    assert.deepEqual(stopOutcome(plain, 30), { afterMs: 0, exitCode: 143 });
    assert.deepEqual(stopOutcome(trapped, 2), { afterMs: 2000, exitCode: 137 });
    assert.deepEqual(stopOutcome(trapped, 0), { afterMs: 0, exitCode: 137 });
  });

  it('reads what the process holds in memory: dd\'s block size, no end for tail /dev/zero', () => {
    assert.equal(behaviourOf(['sh', '-c', 'dd if=/dev/zero of=/dev/null bs=20M'], []).memoryBytes, 20 * 1024 * 1024);
    assert.equal(behaviourOf(['dd', 'if=/dev/urandom', 'of=/dev/null', 'bs=512k'], []).memoryBytes, 512 * 1024);
    assert.equal(behaviourOf(['sh', '-c', 'tail /dev/zero'], []).memoryBytes, Infinity);
    assert.equal(behaviourOf(['sleep', '3600'], []).memoryBytes, undefined);
  });

  it('reads any command line (a manifest\'s, untrusted) without throwing, to a well-formed behaviour', () => {
    const word = fc.oneof(fc.string(), fc.constantFrom('sh', '-c', 'dd', 'if=/dev/zero', 'bs=20M', 'count=1', 'top', 'tail', '-f', '/dev/zero', 'sleep', 'exit', 'trap', ';', '&&', '|'));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), fc.array(word, { maxLength: 4 }), (command, args) => {
        const behaviour = behaviourOf(command, args);
        if (behaviour.exit) assert.ok(behaviour.exit.afterMs >= 0 && behaviour.exit.code >= 0 && behaviour.exit.code <= 255);
        if (behaviour.memoryBytes !== undefined) assert.ok(behaviour.memoryBytes >= 0);
      }),
    );
  });
});

