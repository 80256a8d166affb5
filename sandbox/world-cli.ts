// npm run world -- [--seed S] [--size N] [--day D] [--port P]
// The local world as a standalone process (benchmarks, poking at it by hand): the registry on
// 127.0.0.1, the fleet on 127.0.1.x, and a control endpoint to move the simulated day:
//   curl -X POST 'http://127.0.0.1:PORT/_world?day=5'     (or ?advance)
import { command, exitCodes, expected, integer, main } from '../collector/cli-kit/index.ts';
import { startWorld } from './fleet.ts';

export const HELP = `usage: npm run world -- [options]

Serve the local world (a registry speaking the official list API and a fleet of real SDK MCP servers
drifting over simulated days) on loopback until Ctrl-C.

Options:
  --seed S     world seed (default 1)
  --size N     targets, 50..25000 (default 300)
  --day D      initial simulated day (default 0)
  --port P     one port for the registry (127.0.0.1:P) and every fleet listener (127.0.1.x:P); default ephemeral
  --json       print the state as one JSON line instead of prose
  -h, --help   this text

Control: GET <origin>/_world → state; POST <origin>/_world?day=N (or ?advance) → set the day.
Collect against it: npm run collect -- --registry <registry url> --allow-private --data .tmp/archive --now <iso>

${exitCodes({ 0: 'stopped by Ctrl-C or SIGTERM', 1: 'the world could not start (a port in use) or be closed cleanly', 2: 'bad usage' })}`;

export const COMMAND = command({
  name: 'world',
  help: HELP,
  options: {
    seed: { type: 'string', default: '1' },
    size: { type: 'string', default: '300' },
    day: { type: 'string', default: '0' },
    port: { type: 'string', default: '0' },
    json: { type: 'boolean', default: false },
  },
});

main(import.meta.url, COMMAND, async ({ values }) => {
  const size = integer('size', values.size, { min: 1, max: 100_000 })!;
  const day = integer('day', values.day, { min: 0 })!;
  const port = integer('port', values.port, { min: 0, max: 65535 })!;
  const t0 = performance.now();
  const w = await expected(startWorld({ seed: values.seed, size, day, port }));
  const state = { registry: w.registryUrl, control: w.controlUrl, seed: w.world.seed, size, day, date: w.world.date(day), listeners: w.hostports.length, started_ms: Math.round(performance.now() - t0) };
  if (values.json) console.log(JSON.stringify(state));
  else {
    console.log(`world seed=${state.seed} size=${size} day=${day} (${state.date}), ${state.listeners} loopback hosts, up in ${state.started_ms} ms`);
    console.log(`registry  ${w.registryUrl}`);
    console.log(`control   ${w.controlUrl}   (POST ?day=N or ?advance)`);
    console.log('Ctrl-C to stop.');
  }
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    if (!values.json) console.log(`\n${signal}: closing the world`);
    void w.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
});
