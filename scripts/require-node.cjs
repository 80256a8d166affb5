// Runs before `npm ci`/`npm install` (package.json "preinstall"): a wrong Node gets one sentence
// naming the Node to install, instead of engine warnings and, later, a crash in a dependency.
// CommonJS and no syntax newer than Node 10, so it says its sentence on any Node a user may have.
'use strict';
// The sentence quotes package.json's range; the test holds this check to it at its edges.
var wanted = require('../package.json').engines.node;
var m = /^v(\d+)\.(\d+)\./.exec(process.version);
var major = m ? Number(m[1]) : 0;
var minor = m ? Number(m[2]) : 0;
var ok = (major === 24 && minor >= 11) || major >= 26;
if (!ok) {
  process.stderr.write(
    'mcp-schema needs Node.js 26 (the active LTS, as .nvmrc says) or 24.11+ (engines "' + wanted + '"); this is Node ' +
      process.version + ': install Node 26 (nvm install 26, or npm install -g --prefix ~/.node26 node@26 and put ~/.node26/bin first on PATH) and run npm ci again.\n',
  );
  process.exit(1);
}
