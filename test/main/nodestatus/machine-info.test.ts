import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import {
  goArch,
  parseHugePageDirName,
  parseMemTotalBytes,
  parseOsReleasePrettyName,
  readMachineInfo,
} from '../../../src/main/nodestatus/machine-info.js';

const MEMINFO = `MemTotal:       16331712 kB
MemFree:         1234567 kB
MemAvailable:    9876543 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
`;

test('MemTotal is read in bytes', () => {
  const cases: Array<[string, number | undefined]> = [
    [MEMINFO, 16331712 * 1024],
    ['MemFree: 1 kB\n', undefined],
    ['', undefined],
  ];
  for (const [text, want] of cases) assert.equal(parseMemTotalBytes(text), want, JSON.stringify(text.slice(0, 20)));
});

test('PRETTY_NAME from os-release', () => {
  const cases: Array<[string, string]> = [
    ['NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n', 'Debian GNU/Linux 12 (bookworm)'],
    ["PRETTY_NAME='Alpine Linux v3.19'\n", 'Alpine Linux v3.19'],
    ['PRETTY_NAME=Flatcar\n', 'Flatcar'],
    ['PRETTY_NAME="Say \\"hi\\""\n', 'Say "hi"'],
    ['NAME=Foo\n', 'Linux'],
    ['PRETTY_NAME=""\n', 'Linux'],
  ];
  for (const [text, want] of cases) assert.equal(parseOsReleasePrettyName(text), want, text);
});

test('architectures use Go names', () => {
  const cases: Array<[string, 'BE' | 'LE', string]> = [
    ['x64', 'LE', 'amd64'],
    ['arm64', 'LE', 'arm64'],
    ['arm', 'LE', 'arm'],
    ['ia32', 'LE', '386'],
    ['ppc64', 'LE', 'ppc64le'],
    ['ppc64', 'BE', 'ppc64'],
    ['s390x', 'BE', 's390x'],
    ['riscv64', 'LE', 'riscv64'],
    ['mipsel', 'LE', 'mipsle'],
  ];
  for (const [nodeArch, order, want] of cases) assert.equal(goArch(nodeArch, order), want, nodeArch);
});

test('huge page pool directory names', () => {
  assert.equal(parseHugePageDirName('hugepages-2048kB'), 2048);
  assert.equal(parseHugePageDirName('hugepages-1048576kB'), 1048576);
  assert.equal(parseHugePageDirName('hugepages'), undefined);
});

test('readMachineInfo reads a host tree', () => {
  const hostRoot = mkdtempSync(join(tmpdir(), 'shardlet-machine-'));
  try {
    const files: Record<string, string> = {
      '/proc/meminfo': MEMINFO,
      '/etc/machine-id': 'abc123\n',
      '/proc/sys/kernel/random/boot_id': 'boot-1\n',
      '/etc/os-release': 'PRETTY_NAME="Test OS 1"\n',
      '/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages': '4\n',
      '/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages': '0\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(hostRoot, path)), { recursive: true });
      writeFileSync(join(hostRoot, path), text);
    }
    const info = readMachineInfo({ rootDir: join(hostRoot, 'does/not/exist/yet'), hostRoot });
    assert.equal(info.memoryCapacityBytes, 16331712 * 1024);
    assert.equal(info.machineID, 'abc123');
    assert.equal(info.bootID, 'boot-1');
    assert.equal(info.systemUUID, '');
    assert.equal(info.osImage, 'Test OS 1');
    assert.equal(info.operatingSystem, 'linux');
    assert.deepEqual(info.hugePages, [
      { pageSizeKiB: 2048, numPages: 4 },
      { pageSizeKiB: 1048576, numPages: 0 },
    ]);
    assert.ok(info.numCores >= 1);
    assert.ok(info.ephemeralStorageCapacityBytes > 0, 'statfs falls back to the nearest existing parent');
  } finally {
    rmSync(hostRoot, { recursive: true, force: true });
  }
});
