import type { RawDataResponse, RouteName } from '../../api/index.ts';

/**
 * What an upstream answer keeps for clients: raw data loses its personal fields (`user_email`,
 * `user_id`) unless the operator opted in (`rawDataPersonalFields`); every other route is kept whole.
 */
export function forClients(route: RouteName, data: unknown, keepPersonalFields: boolean): unknown {
  if (route !== 'raw_data' || keepPersonalFields) return data;
  const envelope = data as RawDataResponse;
  return {
    ...envelope,
    data: envelope.data.map(({ user_email: _email, user_id: _id, ...record }) => record),
  };
}
