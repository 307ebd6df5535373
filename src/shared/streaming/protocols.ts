// The Kubernetes streaming subprotocols, named once for both ends in the project:
// the kubelet's proxy (which only needs to recognise them) and the simulated
// runtime's streaming server (which speaks them).

/** SPDY protocols of exec/attach, best first (upstream's remotecommand server list; v5 is websocket-only). */
export const SPDY_EXEC_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];
/** Websocket subprotocols of exec/attach, best first. */
export const WEBSOCKET_EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'v4.base64.channel.k8s.io', 'base64.channel.k8s.io', 'channel.k8s.io'];
/** The port-forward SPDY protocol. */
export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
/** kubectl ≥ 1.31 tunnels port-forward's SPDY inside a websocket under this subprotocol. */
export const PORT_FORWARD_TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';
