// Container logs: the CRI log format every record of every container must have
// (cri-tools' container.go parseCRILog, multi_container_linux.go "should support
// container log"), and ReopenContainerLog (api.proto, container.go "reopening
// container log").
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { containerLogDirectory, type ContractCase, type ContractContext } from '../contract-context.js';

/** `<RFC3339Nano> <stdout|stderr> <P|F> <content>`, as upstream's parseCRILog and critest's read it. */
const CRI_RECORD = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2}) (stdout|stderr) (P|F)(:[^ ]*)? (.*)$/;

interface LogRecord {
  stream: string;
  tag: string;
  content: string;
}

/** Every record of a log file, failing on any line that is not one. */
function criRecords(path: string): LogRecord[] {
  const text = readFileSync(path, 'utf8');
  if (text === '') return [];
  assert.ok(text.endsWith('\n'), `${path} ends mid-record`);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const match = CRI_RECORD.exec(line);
      assert.ok(match, `${path}: not a CRI log record: ${JSON.stringify(line)}`);
      return { stream: match[3], tag: match[4], content: match[6] };
    });
}

async function exitedWithLog(ctx: ContractContext, command: string[]): Promise<LogRecord[]> {
  const logDirectory = ctx.logDirectory();
  const sandbox = await ctx.sandbox('log', { log_directory: logDirectory });
  const id = await ctx.container(sandbox, 'log', command, { log_path: 'log.log' });
  await ctx.client.startContainer({ container_id: id }, 60_000);
  await ctx.waitForState(id, 'CONTAINER_EXITED');
  return criRecords(join(logDirectory, 'log.log'));
}

export const LOG_CASES: ContractCase[] = [
  {
    name: 'A container\'s output is in its log file as CRI records',
    spec: 'critest container.go "runtime should support starting container with log" (echo "hello World": one stdout F record)',
    async run(ctx) {
      assert.deepEqual(await exitedWithLog(ctx, ['echo', 'hello World']), [{ stream: 'stdout', tag: 'F', content: 'hello World' }]);
    },
  },
  {
    name: 'stderr lines are records of the stderr stream; each stream keeps its order',
    spec: 'api.proto ContainerConfig.log_path: the CRI log format names each record\'s stream (two pipes: containerd orders records within a stream, not across them)',
    async run(ctx) {
      const records = await exitedWithLog(ctx, ['sh', '-c', 'echo out; echo err >&2; echo out2']);
      const of = (stream: string) => records.filter((record) => record.stream === stream).map((record) => `${record.tag} ${record.content}`);
      assert.deepEqual(of('stdout'), ['F out', 'F out2']);
      assert.deepEqual(of('stderr'), ['F err']);
      assert.equal(records.length, 3);
    },
  },
  {
    name: 'Every container of a multi-container pod writes CRI records to its own ContainerStatus.log_path',
    spec: 'critest multi_container_linux.go "should support container log"; the kubelet\'s log paths <pod log dir>/<container>/<restart>.log',
    async run(ctx) {
      const logDirectory = ctx.logDirectory();
      const sandbox = await ctx.sandbox('multi', { log_directory: logDirectory });
      const ids = [];
      for (const name of ['first', 'second', 'third']) {
        const command = ['sh', '-c', `echo hello from ${name}; echo warn ${name} >&2; sleep 3600`];
        containerLogDirectory(logDirectory, name); // as the kubelet makes it before CreateContainer
        ids.push(await ctx.runningContainer(sandbox, name, command, { log_path: `${name}/0.log` }));
      }
      for (const [index, name] of ['first', 'second', 'third'].entries()) {
        const { log_path: logPath } = await ctx.containerStatus(ids[index]);
        assert.equal(logPath, join(logDirectory, `${name}/0.log`));
        await ctx.eventually(`${name}'s log written`, () => existsSync(logPath) && criRecords(logPath).length >= 2);
        const records = criRecords(logPath);
        assert.deepEqual(
          records.map((r) => `${r.stream} ${r.content}`).sort(),
          [`stderr warn ${name}`, `stdout hello from ${name}`],
        );
      }
    },
  },
  {
    name: 'ReopenContainerLog starts a new file at the log path; the renamed one gets no more lines',
    spec: 'critest container.go "runtime should support reopening container log"; api.proto ReopenContainerLog',
    async run(ctx) {
      const logDirectory = ctx.logDirectory();
      const sandbox = await ctx.sandbox('reopen', { log_directory: logDirectory });
      const id = await ctx.runningContainer(sandbox, 'looper', ['sh', '-c', 'while true; do echo hello World; sleep 1; done'], { log_path: 'loop.log' });
      const path = join(logDirectory, 'loop.log');
      await ctx.eventually('first line logged', () => existsSync(path) && criRecords(path).length > 0);
      renameSync(path, `${path}.old`);
      await ctx.client.reopenContainerLog({ container_id: id });
      assert.ok(existsSync(path), 'a new log file at the log path');
      await ctx.eventually('a line in the new file', () => criRecords(path).length > 0);
      const oldLength = criRecords(`${path}.old`).length;
      await sleep(2_500);
      assert.equal(criRecords(`${path}.old`).length, oldLength, 'the old file must not grow');
    },
  },
  {
    name: 'ReopenContainerLog of an exited container fails and creates no file',
    spec: 'api.proto ReopenContainerLog: "If the container is not running, the runtime can choose to either create a new log file and return nil, or return an error. Once it returns error, new container log file MUST NOT be created."',
    async run(ctx) {
      const logDirectory = ctx.logDirectory();
      const sandbox = await ctx.sandbox('reopen-exited', { log_directory: logDirectory });
      const id = await ctx.container(sandbox, 'done', ['echo', 'bye'], { log_path: 'done.log' });
      await ctx.client.startContainer({ container_id: id }, 60_000);
      await ctx.waitForState(id, 'CONTAINER_EXITED');
      const path = join(logDirectory, 'done.log');
      renameSync(path, `${path}.old`);
      await assert.rejects(ctx.client.reopenContainerLog({ container_id: id }));
      assert.equal(existsSync(path), false);
    },
  },
];
