// Preloaded (node --import) into the child that runs the official conformance suite's mock server
// (sandbox/conformance-mock.ts). Three fixes, each for a fact of this machine, none changing what the
// mock answers:
//   - @modelcontextprotocol/conformance 0.2.0-alpha.12 is built for Node 22: its bundle imports
//     `globSync` from 'fs' (added in Node 22) at load time, so on Node 20 the import fails before
//     anything runs. The interactive mock never calls it; a stub that throws keeps a call loud.
//   - its servers call `listen(0)` with no host, i.e. every interface; the house rule is loopback
//     only, so a port-only listen is given 127.0.0.1.
//   - the child must not outlive the zoo: it stops (SIGTERM → the suite's own shutdown) when the
//     parent closes our stdin, which also happens when the parent dies.
const fs = process.getBuiltinModule('fs');
if (!fs.globSync) {
  fs.globSync = () => {
    throw new Error('fs.globSync needs node 22 (stubbed by sandbox/conformance-preload.mjs)');
  };
}
const net = process.getBuiltinModule('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};
process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM'));
process.stdin.resume();
