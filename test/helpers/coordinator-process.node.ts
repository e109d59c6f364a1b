/**
 * Node tests only. The primary's side of `--workers` alone, in a child process: a Coordinator
 * answering every tier request on the IPC channel, as cluster.ts's primary does for its workers.
 */
import { Coordinator, isTierRequest } from '../../src/server/workers/coordinator.ts';

const coordinator = new Coordinator(16 << 20);
process.on('message', (message) => {
  if (isTierRequest(message)) process.send!(coordinator.answer(message));
});
process.send!({ ready: true });
