/** The seeded upstream simulator: the model (isomorphic) and the faithful HTTP upstream (Web handler). */
export {
  createSimulator,
  DEMO_HOSTS,
  RAW_DATA_DEFAULT_LIMIT,
  STEP_MS,
  type Sent,
  type Simulator,
  type SimulatorOptions,
} from './model/index.ts';
export { createUpstreamHandler, type UpstreamOptions } from './upstream.ts';
