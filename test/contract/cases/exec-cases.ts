// What exec sees inside a container: ExecSync and Exec (api.proto, cri-tools'
// container.go and streaming.go), and the parts of the pod's and container's
// security context and network config a process can observe (security_context_linux.go
// "bucket": RunAsUser, RunAsUsername, RunAsGroup, SupplementalGroups; pod_linux.go
// sysctls; networking.go DNS config and hostname).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { type ContractCase } from '../contract-context.js';
import { websocketExec } from '../../helpers/stream-clients.js';

const PAUSE_COMMAND = ['sh', '-c', 'top'];

export const EXEC_CASES: ContractCase[] = [
  {
    name: 'ExecSync answers with the command\'s stdout, empty stderr and exit code 0',
    spec: 'critest container.go "runtime should support execSync" (echo -n hello)',
    async run(ctx) {
      const sandbox = await ctx.sandbox('exec');
      const id = await ctx.runningContainer(sandbox, 'exec', PAUSE_COMMAND);
      assert.deepEqual(await ctx.exec(id, ['echo', '-n', 'hello']), { stdout: 'hello', stderr: '', exitCode: 0 });
    },
  },
  {
    name: 'ExecSync reports a failing command through its exit code, not as an error',
    spec: 'api.proto ExecSyncResponse.exit_code; the kubelet\'s exec probe reads it',
    async run(ctx) {
      const sandbox = await ctx.sandbox('exec-exit');
      const id = await ctx.runningContainer(sandbox, 'exec', PAUSE_COMMAND);
      const result = await ctx.exec(id, ['sh', '-c', 'echo bad >&2; exit 7']);
      assert.deepEqual(result, { stdout: '', stderr: 'bad\n', exitCode: 7 });
    },
  },
  {
    name: 'ExecSync past its timeout fails, and the container still answers execs',
    spec: 'critest container.go "runtime should support execSync with timeout"; api.proto ExecSyncRequest.timeout',
    async run(ctx) {
      const sandbox = await ctx.sandbox('exec-timeout');
      const id = await ctx.runningContainer(sandbox, 'exec', PAUSE_COMMAND);
      await assert.rejects(ctx.client.execSync({ container_id: id, cmd: ['sleep', '4321'], timeout: 1 }, 20_000));
      assert.equal((await ctx.exec(id, ['echo', 'alive'])).stdout, 'alive\n');
    },
  },
  {
    name: 'ExecSync in a container that has exited fails',
    spec: 'api.proto ExecSync "runs a command in a container synchronously": there is no process to join once it exited',
    async run(ctx) {
      const sandbox = await ctx.sandbox('exec-exited');
      const id = await ctx.container(sandbox, 'done', ['true']);
      await ctx.client.startContainer({ container_id: id }, 60_000);
      await ctx.waitForState(id, 'CONTAINER_EXITED');
      await assert.rejects(ctx.client.execSync({ container_id: id, cmd: ['echo', 'x'], timeout: 5 }));
    },
  },
  {
    name: 'Exec hands out a streaming URL that runs the command (websocket v4.channel.k8s.io)',
    spec: 'critest streaming.go "runtime should support exec with tty=false and stdin=false"; api.proto Exec returns a URL to the streaming server',
    async run(ctx) {
      const sandbox = await ctx.sandbox('exec-stream');
      const id = await ctx.runningContainer(sandbox, 'exec', PAUSE_COMMAND);
      const { url } = await ctx.client.exec({ container_id: id, cmd: ['echo', '-n', 'hello'], stdout: true, stderr: true });
      const result = await websocketExec(url, { protocol: 'v4.channel.k8s.io' });
      assert.equal(result.stdout, 'hello');
      assert.match(result.error, /"status":"Success"/);
    },
  },
  {
    name: 'RunAsUser is the uid exec runs as',
    spec: 'critest security_context_linux.go "runtime should support RunAsUser" (id -u prints 1001)',
    async run(ctx) {
      const sandbox = await ctx.sandbox('run-as-user');
      const id = await ctx.runningContainer(sandbox, 'user', PAUSE_COMMAND, { linux: { security_context: { run_as_user: { value: 1001 } } } });
      assert.equal((await ctx.exec(id, ['id', '-u'])).stdout, '1001\n');
    },
  },
  {
    name: 'RunAsUsername is the user exec runs as',
    spec: 'critest security_context_linux.go "runtime should support RunAsUserName" (id -nu prints nobody)',
    async run(ctx) {
      const sandbox = await ctx.sandbox('run-as-username');
      const id = await ctx.runningContainer(sandbox, 'user', PAUSE_COMMAND, { linux: { security_context: { run_as_username: 'nobody' } } });
      assert.equal((await ctx.exec(id, ['id', '-nu'])).stdout, 'nobody\n');
      assert.equal((await ctx.exec(id, ['id', '-u'])).stdout, '65534\n');
    },
  },
  {
    name: 'RunAsGroup is the gid the container\'s own process and exec run as',
    spec: 'critest security_context_linux.go "runtime should support RunAsGroup" (echo $(id -u):$(id -g) logs 1001:1002)',
    async run(ctx) {
      const logDirectory = ctx.logDirectory();
      const sandbox = await ctx.sandbox('run-as-group', { log_directory: logDirectory });
      const securityContext = { run_as_user: { value: 1001 }, run_as_group: { value: 1002 } };
      const logged = await ctx.container(sandbox, 'group-log', ['sh', '-c', 'echo $(id -u):$(id -g)'], {
        linux: { security_context: securityContext },
        log_path: 'group.log',
      });
      await ctx.client.startContainer({ container_id: logged }, 60_000);
      await ctx.waitForState(logged, 'CONTAINER_EXITED');
      assert.match(readFileSync(`${logDirectory}/group.log`, 'utf8'), / stdout F 1001:1002\n/);
      const id = await ctx.runningContainer(sandbox, 'group', PAUSE_COMMAND, { linux: { security_context: securityContext } });
      assert.equal((await ctx.exec(id, ['id', '-g'])).stdout, '1002\n');
    },
  },
  {
    name: 'RunAsGroup without RunAsUser is refused at CreateContainer',
    spec: 'critest security_context_linux.go "runtime should return error if RunAsGroup is set without RunAsUser"',
    async run(ctx) {
      const sandbox = await ctx.sandbox('group-only');
      await assert.rejects(
        ctx.container(sandbox, 'group-only', ['sh', '-c', 'echo $(id -u):$(id -g)'], { linux: { security_context: { run_as_group: { value: 1002 } } } }),
      );
    },
  },
  {
    name: 'SupplementalGroups are among the groups exec runs with',
    spec: 'critest security_context_linux.go "runtime should support SupplementalGroups" (id -G lists 1234 and 5678)',
    async run(ctx) {
      const sandbox = await ctx.sandbox('groups');
      const id = await ctx.runningContainer(sandbox, 'groups', PAUSE_COMMAND, { linux: { security_context: { supplemental_groups: [1234, 5678] } } });
      const groups = (await ctx.exec(id, ['id', '-G'])).stdout.trim().split(' ');
      assert.equal(groups[0], '0', 'the primary group comes first');
      assert.ok(groups.includes('1234') && groups.includes('5678'), `groups ${groups.join(' ')}`);
    },
  },
  {
    name: 'The sandbox\'s hostname is what hostname prints in its containers',
    spec: 'critest networking.go "runtime should support set hostname"; api.proto PodSandboxConfig.hostname',
    async run(ctx) {
      const sandbox = await ctx.sandbox('host', { hostname: 'contract-hostname' });
      const id = await ctx.runningContainer(sandbox, 'host', PAUSE_COMMAND);
      assert.equal((await ctx.exec(id, ['hostname'])).stdout, 'contract-hostname\n');
      assert.equal((await ctx.exec(id, ['cat', '/etc/hostname'])).stdout, 'contract-hostname\n');
    },
  },
  {
    name: 'Safe and unsafe sysctls of the sandbox are set in its containers',
    spec: 'critest pod_linux.go "should support safe sysctls" (kernel.shm_rmid_forced=1) and "should support unsafe sysctls" (fs.mqueue.msg_max=100)',
    async run(ctx) {
      const sandbox = await ctx.sandbox('sysctls', { linux: { sysctls: { 'kernel.shm_rmid_forced': '1', 'fs.mqueue.msg_max': '100' } } });
      const id = await ctx.runningContainer(sandbox, 'sysctls', PAUSE_COMMAND);
      assert.equal((await ctx.exec(id, ['cat', '/proc/sys/kernel/shm_rmid_forced'])).stdout.trim(), '1');
      assert.equal((await ctx.exec(id, ['cat', '/proc/sys/fs/mqueue/msg_max'])).stdout.trim(), '100');
    },
  },
  {
    name: 'The sandbox\'s DNS config is the containers\' resolv.conf',
    spec: 'critest networking.go "runtime should support DNS config" (nameserver, search and options lines)',
    async run(ctx) {
      const sandbox = await ctx.sandbox('dns', { dns_config: { servers: ['10.10.10.10'], searches: ['google.com'], options: ['ndots:8'] } });
      const id = await ctx.runningContainer(sandbox, 'dns', PAUSE_COMMAND);
      const resolvConf = (await ctx.exec(id, ['cat', '/etc/resolv.conf'])).stdout;
      for (const line of ['nameserver 10.10.10.10', 'search google.com', 'options ndots:8']) assert.ok(resolvConf.includes(line), `${line} in ${resolvConf}`);
    },
  },
];
