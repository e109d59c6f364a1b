/** Servers the benchmarks start in processes of their own: `pulse-widgets serve` and bench/bare-node.mjs. */
import { spawn } from 'node:child_process';

/** This process's environment without our settings, so a benchmark's server runs on exactly the ones it is given. */
export function cleanEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PULSE_') && name !== 'PORT' && name !== 'HOST'));
}

/** `pulse-widgets serve` with `args`, as [command, arguments] (to run as it is, or pinned to a CPU); run it with the source tree as cwd. */
export function serveCommand(args = []) {
  return [process.execPath, ['--import', 'tsx', 'src/server/cli.ts', 'serve', ...args]];
}

/** A child process that prints `listening on <url>`; resolves with its URL (no trailing slash), its PID and a close() that stops it. */
export async function startListening(command, commandArgs, options) {
  const child = spawn(command, commandArgs, { ...options, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const found = /listening on (http:\/\/[\d.:]+)/.exec(output);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`${[command, ...commandArgs].join(' ')} exited (${code}): ${output}`)));
  });
  return {
    url,
    pid: child.pid,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
