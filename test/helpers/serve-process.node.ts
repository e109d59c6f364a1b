/**
 * Servers started in processes of their own, for Node tests and the benchmarks:
 * `pulse-widgets serve` from the source tree, and anything else that prints `listening on <url>`.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { entryArgs } from './entry-command.node.ts';

/** This process's environment without our settings, so a child server runs on exactly the ones it is given. */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('PULSE_') && name !== 'PORT' && name !== 'HOST',
    ),
  );
}

/** `pulse-widgets serve` with `args`, as [command, arguments] (to run as it is, or pinned to a CPU); run it with the source tree as cwd. */
export function serveCommand(args: readonly string[] = []): [string, string[]] {
  return [process.execPath, [...entryArgs('src/server/cli.ts'), 'serve', ...args]];
}

export interface ListeningProcess {
  /** Without a trailing slash. */
  url: string;
  pid: number | undefined;
  /** SIGTERM, resolved once it exited. */
  close(): Promise<void>;
}

/**
 * A child process that prints `listening on <url>`; resolves once it does. `onOutput` gets its
 * stdout, chunk by chunk, from the start (a benchmark reads the server's log lines).
 */
export async function startListening(
  command: string,
  commandArgs: readonly string[],
  options: SpawnOptions = {},
  onOutput?: (chunk: string) => void,
): Promise<ListeningProcess> {
  const child = spawn(command, commandArgs, { ...options, stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout!.setEncoding('utf8');
  if (onOutput) child.stdout!.on('data', onOutput);
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: string) => {
      output += chunk;
      const found = /listening on (http:\/\/[\d.:]+)/.exec(output);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) =>
      reject(new Error(`${[command, ...commandArgs].join(' ')} exited (${code}): ${output}`)),
    );
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
