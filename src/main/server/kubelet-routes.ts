// The kubelet API's routes (:10250), as a table the server consults after it has
// authenticated and authorized a request. Each concern (logs, streaming, metrics,
// stats, pods) registers its own paths here, so the server module knows nothing of
// what the endpoints do and an endpoint module knows nothing of TLS or auth.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** Who made the request, as authentication established it (upstream's user.Info). */
export interface RequestUser {
  name: string;
  /** The API server's UID for the user (from TokenReview); part of every SubjectAccessReview. */
  uid?: string;
  groups: string[];
  /** Extra attributes the authenticator vouched for (scopes, credential IDs); passed on to SubjectAccessReview. */
  extra?: Record<string, string[]>;
}

export interface RouteContext {
  /** The parsed request target (path and query). */
  url: URL;
  user: RequestUser;
  /** Aborted when the client goes away or the kubelet stops: long reads (follow) end then. */
  signal: AbortSignal;
}

/** A plain request: the handler writes the whole response. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse, ctx: RouteContext) => void | Promise<void>;
/**
 * A request carrying `Upgrade:` (SPDY/3.1 or websocket): Node hands the raw socket
 * over instead of a response; the handler owns it from then on.
 */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, ctx: RouteContext) => void | Promise<void>;

export interface Route {
  /** A path ("/configz") or, ending in '/', a path prefix ("/containerLogs/"). */
  path: string;
  /** HTTP methods served; others get 405. */
  methods: readonly string[];
  request?: RequestHandler;
  upgrade?: UpgradeHandler;
}

export class KubeletRoutes {
  private readonly exact = new Map<string, Route>();
  private readonly prefixes: Route[] = [];

  add(route: Route): void {
    if (route.path.endsWith('/') && route.path !== '/') {
      this.prefixes.push(route);
      // Longest prefix first: "/metrics/resource/" before "/metrics/".
      this.prefixes.sort((a, b) => b.path.length - a.path.length);
    } else {
      if (this.exact.has(route.path)) throw new Error(`route ${route.path} registered twice`);
      this.exact.set(route.path, route);
    }
  }

  /** Every route, exact paths first: what the server serves (its metrics' path buckets, the attack suite's targets). */
  list(): Route[] {
    return [...this.exact.values(), ...this.prefixes];
  }

  /** The route serving `path`: an exact path first, else the longest matching prefix. */
  match(path: string): Route | undefined {
    return this.exact.get(path) ?? this.prefixes.find((route) => path.startsWith(route.path));
  }
}
