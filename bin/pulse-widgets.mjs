#!/usr/bin/env node
// Runs the TypeScript CLI through tsx until the packaging step ships it compiled.
import { register } from 'tsx/esm/api';

register();
await import('../src/server/cli.ts');
