// The cluster-mode boundary: a standalone kubelet (no --kubeconfig) loads neither
// @kubernetes/client-node (about 90 MiB of RSS) nor any module of src/main/cluster/
// but boundary.ts, whose one dynamic import is the way in. The walk reads the built
// JavaScript, where type-only imports are gone, and follows the static imports from
// the kubelet's entry and its worker threads' entries (what Node loads before any
// dynamic import runs); a dynamic import() is not followed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const DIST_SRC = fileURLToPath(new URL('../../../src/', import.meta.url));
/** What Node starts in standalone mode: the CLI, and the worker threads ShardPool starts. */
const STANDALONE_ENTRIES = ['main/cli.js', 'workers/shard-worker.js', 'workers/pleg-worker.js'];
const CLUSTER_DIR = resolve(DIST_SRC, 'main/cluster');
const BOUNDARY = resolve(CLUSTER_DIR, 'boundary.js');
const CLIENT_NODE = '@kubernetes/client-node';

interface ModuleGraph {
  /** The project's modules reached, each with the module that first imported it (undefined for an entry). */
  importerOf: Map<string, string | undefined>;
  /** Bare specifiers (packages, node: builtins) imported, each with its first importer. */
  packageImporterOf: Map<string, string>;
}

/** The specifiers of a module's import and export-from declarations: the imports Node loads with it. */
function staticSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  return source.statements.flatMap((statement) => {
    const isStatic = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement);
    return isStatic && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? [statement.moduleSpecifier.text] : [];
  });
}

function staticGraph(entries: string[]): ModuleGraph {
  const graph: ModuleGraph = { importerOf: new Map(), packageImporterOf: new Map() };
  const pending: Array<[string, string | undefined]> = entries.map((entry) => [resolve(DIST_SRC, entry), undefined]);
  while (pending.length > 0) {
    const [file, importer] = pending.pop()!;
    if (graph.importerOf.has(file)) continue;
    graph.importerOf.set(file, importer);
    for (const specifier of staticSpecifiers(file)) {
      if (specifier.startsWith('.')) pending.push([resolve(dirname(file), specifier), file]);
      else if (!graph.packageImporterOf.has(specifier)) graph.packageImporterOf.set(specifier, file);
    }
  }
  return graph;
}

/** The import chain from an entry to `file`, for the failure message. */
function chainTo(graph: ModuleGraph, file: string): string {
  const chain: string[] = [];
  for (let at: string | undefined = file; at; at = graph.importerOf.get(at)) chain.unshift(relative(DIST_SRC, at));
  return chain.join(' -> ');
}

const isClientNode = (specifier: string) => specifier === CLIENT_NODE || specifier.startsWith(`${CLIENT_NODE}/`);

test('the standalone kubelet and its worker threads import nothing of cluster mode but its boundary', () => {
  const graph = staticGraph(STANDALONE_ENTRIES);
  const clusterModules = [...graph.importerOf.keys()].filter((file) => file.startsWith(`${CLUSTER_DIR}/`) && file !== BOUNDARY);
  assert.deepEqual(
    clusterModules.map((file) => chainTo(graph, file)),
    [],
    'cluster-mode modules reached by static imports: load them through loadClusterMode (src/main/cluster/boundary.ts)',
  );
  const clientNode = [...graph.packageImporterOf].filter(([specifier]) => isClientNode(specifier));
  assert.deepEqual(
    clientNode.map(([specifier, importer]) => `${chainTo(graph, importer)} -> ${specifier}`),
    [],
    `${CLIENT_NODE} reached by static imports: only cluster mode may import it (type-only imports are fine)`,
  );
  // The walk reaches the boundary through the kubelet, so the checks above looked where it matters.
  assert.ok(graph.importerOf.has(BOUNDARY), 'the standalone graph should hold src/main/cluster/boundary.js');
});

test('behind the boundary, cluster mode loads client-node', () => {
  const graph = staticGraph(['main/cluster/index.js']);
  assert.ok([...graph.packageImporterOf.keys()].some(isClientNode), `cluster mode's graph should import ${CLIENT_NODE}`);
});
