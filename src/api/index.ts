export * from './params.ts';
export * from './responses.ts';
export * from './routes.ts';
export * from './page-url.ts';
