// `node -r` preload: appends every outgoing socket connect and every DNS call of this process to the file named by
// MCP_HEALTH_NET_LOG, one JSON line each, so a test can prove where a process reached out to.
const { appendFileSync } = require('node:fs');
const net = require('node:net');
const dns = require('node:dns');

const logFile = process.env.MCP_HEALTH_NET_LOG;
const record = (entry) => appendFileSync(logFile, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  record({ kind: 'connect', host: options.host ?? null, port: options.port ?? null, path: options.path ?? null });
  return connect.apply(this, args);
};
for (const name of ['lookup', 'resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveTxt', 'resolveSrv', 'reverse']) {
  const original = dns[name];
  dns[name] = function (...args) {
    record({ kind: `dns.${name}`, host: String(args[0]) });
    return original.apply(this, args);
  };
  const promised = dns.promises[name];
  if (promised) {
    dns.promises[name] = function (...args) {
      record({ kind: `dns.promises.${name}`, host: String(args[0]) });
      return promised.apply(this, args);
    };
  }
}
