export * from './params.ts';
export * from './responses.ts';
export * from './routes.ts';
export * from './page-url.ts';
export * from './constants.ts';
export * from './paths.ts';
export * from './check-response.ts';
export * from './history.ts';
