export {
  createSimulator,
  DEMO_HOSTS,
  type Sent,
  type Simulator,
  type SimulatorOptions,
} from './simulator.ts';
export { STEP_MS } from './snapshot.ts';
export { RAW_DATA_DEFAULT_LIMIT } from './experiments.ts';
